// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestInvalidUTF8FailsTheEvent: a request with a string that is not UTF-8
// (protobuf allows none) fails the event once, before any plugin gets it,
// with an error that names the event and the field, and blames no plugin;
// the plugin stays for the next event. Requests are encoded without a
// UTF-8 check, so nrikit checks the encoding before sending it.
func TestInvalidUTF8FailsTheEvent(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "a", testplugin.Config{})
	e.start()
	e.waitPlugins("10-a")
	ctx := context.Background()
	bad := testPod("bad")
	bad.Labels["app"] = "\xff\xfe"
	err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: bad})
	if !errors.Is(err, adaptation.ErrInvalidUTF8) {
		t.Fatalf("RunPodSandbox with a label that is not UTF-8: %v, want ErrInvalidUTF8", err)
	}
	for _, want := range []string{"RunPodSandbox", `pod.labels["app"]`, "not valid UTF-8"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "10-a") {
		t.Errorf("error %q blames the plugin for the runtime's request", err)
	}
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: testPod("good")}); err != nil {
		t.Fatalf("the next pod failed: %v", err)
	}
	if got := e.events("a"); !slices.Equal(got, []string{"RunPodSandbox"}) {
		t.Errorf("the plugin got %v, want only the good pod's RunPodSandbox", got)
	}
	if got := e.a.Plugins(); len(got) != 1 || got[0].Plugin != "10-a" {
		t.Fatalf("plugins after the bad request: %+v", got)
	}
}
