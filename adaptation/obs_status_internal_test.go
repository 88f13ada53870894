// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"reflect"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/status"
)

// The public bounds keep their literal values here, and are the ones the
// component keeps.
func TestStatusBoundsAreTheComponents(t *testing.T) {
	for _, c := range []struct {
		name           string
		public, status int
	}{
		{"MaxRecentChanges", MaxRecentChanges, status.MaxRecentChanges},
		{"MaxRecentRefused", MaxRecentRefused, status.MaxRecentRefused},
		{"MaxStatusClients", MaxStatusClients, status.MaxClients},
	} {
		if c.public != c.status {
			t.Errorf("%s is %d, internal/status keeps %d", c.name, c.public, c.status)
		}
	}
}

// A change kept for Status reads back as the runtime's callback got it.
func TestPluginChangeRoundTrip(t *testing.T) {
	for _, c := range []PluginChange{
		{Change: PluginJoined, Plugin: "10-a", Kind: KindPreinstalled, Revision: RevisionV1beta1, PID: 42, Time: time.Now()},
		{Change: PluginLeft, Plugin: "10-a", Kind: KindPreinstalled, Phase: "CreateContainer", Reason: "exit status 1", Time: time.Now(),
			Output: []OutputLine{{Stream: "stderr", Text: "panic: no"}}},
		{Change: PluginFailed, Plugin: "unregistered", Kind: KindExternal, Output: []OutputLine{}},
	} {
		if got := pluginChange(nriChange(c)); !reflect.DeepEqual(got, c) {
			t.Errorf("%+v reads back as %+v", c, got)
		}
	}
}
