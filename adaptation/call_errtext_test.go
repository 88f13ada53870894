// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestPluginErrorTextIsBounded: a plugin failing with a 2 MB message makes
// an error of a few kilobytes, in the runtime's log and in what the
// runtime's caller gets.
func TestPluginErrorTextIsBounded(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "loud", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
		"CreateContainer": {Fail: strings.Repeat("x", 2<<20)},
	}})
	e.start()
	e.waitPlugins("10-loud")
	pod := testPod("p")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c", pod)})
	if err == nil || !strings.Contains(err.Error(), "xxxx") {
		t.Fatalf("CreateContainer = %v, want the plugin's error", err)
	}
	if n := len(err.Error()); n > 8<<10 {
		t.Errorf("the error returned is %d bytes", n)
	}
	logged := 0
	for _, en := range e.logged(logrus.Fields{"plugin": "10-loud"}) {
		if v, ok := en.Data["error"]; ok {
			logged++
			if s := fmt.Sprint(v); len(s) > 8<<10 {
				t.Errorf("log line %q has an error field of %d bytes", en.Message, len(s))
			}
		}
	}
	if logged == 0 {
		t.Error("the plugin's failure was not logged")
	}
}
