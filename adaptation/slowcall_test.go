// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestSlowAnswerIsLogged: a plugin that answers in time but after more than
// half its timeout is named in a warning, with the event and how long it
// took, so that an operator finds it before it times out.
func TestSlowAnswerIsLogged(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(2*time.Second))
	e.preinstall("10", "slow", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
		"RunPodSandbox": {Delay: (1300 * time.Millisecond).String()},
	}})
	e.start()
	e.waitPlugins("10-slow")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("p")}))
	lines := e.waitLoggedLine("nrikit: plugin answered after more than half its timeout",
		logrus.Fields{"plugin": "10-slow", "event": "RunPodSandbox"})
	if took, _ := lines[0].Data["took"].(time.Duration); took < time.Second {
		t.Errorf("logged took=%v, want the call's 1.3 s", lines[0].Data["took"])
	}
	e.waitPlugins("10-slow")
}
