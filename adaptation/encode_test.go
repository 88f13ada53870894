package adaptation_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestInvalidUTF8FailsTheEvent: a request with a string that is not UTF-8
// (protobuf allows none) fails the event with an error that names the
// plugin, the event and the cause, and the plugin stays for the next event.
// Requests are encoded without a UTF-8 check, so the plugin's decoder is the
// one that refuses it.
func TestInvalidUTF8FailsTheEvent(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "a", testplugin.Config{})
	e.start()
	e.waitPlugins("10-a")
	ctx := context.Background()
	bad := testPod("bad")
	bad.Labels["app"] = "\xff\xfe"
	err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: bad})
	if err == nil {
		t.Fatal("RunPodSandbox with a label that is not UTF-8 succeeded")
	}
	for _, want := range []string{"10-a", "RunPodSandbox", "invalid UTF-8"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: testPod("good")}); err != nil {
		t.Fatalf("the next pod failed: %v", err)
	}
	if got := e.a.Plugins(); len(got) != 1 || got[0].Plugin != "10-a" {
		t.Fatalf("plugins after the bad request: %+v", got)
	}
}
