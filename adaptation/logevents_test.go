// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// The log names a plugin's subscription as the API spells the events
// (CreateContainer), the way every other log line and the docs do.
func TestPluginConnectedLogsEventNamesAsTheAPISpellsThem(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "some", testplugin.Config{Events: "runpodsandbox,createcontainer"})
	e.preinstall("20", "every", testplugin.Config{})
	e.start()
	e.waitPlugins("10-some", "20-every")
	for id, want := range map[string]string{"10-some": "RunPodSandbox,CreateContainer", "20-every": "all"} {
		line := e.waitLoggedLine("nrikit: plugin connected", logrus.Fields{"plugin": id})[0]
		if got := line.Data["events"]; got != want {
			t.Errorf("%s: logged events %q, want %q", id, got, want)
		}
	}
}
