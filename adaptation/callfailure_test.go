// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// failureRecorder is a Metrics that also wants the reason of each failed
// call; it records the order of what it is told, "plugin event what".
type failureRecorder struct {
	mu  sync.Mutex
	log []string
}

func (r *failureRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, s)
}

func (r *failureRecorder) PluginInvoked(plugin string, ev api.Event, o adaptation.Outcome, _ time.Duration) {
	r.add(plugin + " " + ev.Name() + " " + string(o))
}

func (r *failureRecorder) AdjustmentsReturned(string, api.Event, int, int, int) {}
func (r *failureRecorder) PluginCount(int)                                      {}

func (r *failureRecorder) PluginCallFailed(plugin string, ev api.Event, o adaptation.Outcome, err error) {
	r.add(plugin + " " + ev.Name() + " " + string(o) + " because " + err.Error())
}

// TestCallFailureMetricsGetsTheReason: a Metrics that implements
// CallFailureMetrics hears why a call failed, just before PluginInvoked.
func TestCallFailureMetricsGetsTheReason(t *testing.T) {
	rec := &failureRecorder{}
	probe := newEnv(t)
	e := newEnvAt(t, probe,
		adaptation.WithMetrics(rec),
		adaptation.WithBuiltinPlugins(probe.builtin("20", "failer", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
			"StopPodSandbox": {Fail: "cannot stop today"},
		}})))
	e.start()
	e.waitPlugins("20-failer")
	pod := testPod("cf")
	ctx := context.Background()
	if err := e.a.RunPodSandbox(ctx, &adaptation.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	if err := e.a.StopPodSandbox(ctx, &adaptation.StopPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err) // a teardown never fails
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := []string{"20-failer RunPodSandbox ok", "20-failer StopPodSandbox error because ", "20-failer StopPodSandbox error"}
	var got []string
	for _, l := range rec.log {
		if strings.Contains(l, "RunPodSandbox") || strings.Contains(l, "StopPodSandbox") {
			got = append(got, l)
		}
	}
	if len(got) != 3 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) || !strings.Contains(got[1], "cannot stop today") || got[2] != want[2] {
		t.Errorf("metrics were told %q, want %q (with the plugin's reason), then %q", got, want[:2], want[2])
	}
}
