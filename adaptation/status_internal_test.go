// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"reflect"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
)

// A change the relay reports reads, for the runtime's callback and Status,
// field for field as the relay told it.
func TestPluginChangeFromTheRelays(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		in   nri.Change
		want PluginChange
	}{
		{nri.Change{Change: nri.Joined, Plugin: "10-a", Kind: "pre-installed", Revision: "v1beta1", PID: 42, Time: now},
			PluginChange{Change: PluginJoined, Plugin: "10-a", Kind: KindPreinstalled, Revision: RevisionV1beta1, PID: 42, Time: now}},
		{nri.Change{Change: nri.Left, Plugin: "10-a", Kind: "pre-installed", Phase: "CreateContainer", Reason: "exit status 1", Time: now,
			Output: []nri.OutputLine{{Stream: "stderr", Text: "panic: no"}}},
			PluginChange{Change: PluginLeft, Plugin: "10-a", Kind: KindPreinstalled, Phase: "CreateContainer", Reason: "exit status 1", Time: now,
				Output: []OutputLine{{Stream: "stderr", Text: "panic: no"}}}},
		{nri.Change{Change: nri.Failed, Plugin: "unregistered", Kind: "external", Output: []nri.OutputLine{}},
			PluginChange{Change: PluginFailed, Plugin: "unregistered", Kind: KindExternal, Output: []OutputLine{}}},
	} {
		if got := pluginChange(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v reads as %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
