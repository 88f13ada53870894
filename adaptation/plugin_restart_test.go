// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// callLog is a WithPluginCallObserver that keeps "plugin method pod".
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) observe(c adaptation.PluginCall) {
	pod := ""
	if r, ok := c.Request.(interface{ GetPod() *api.PodSandbox }); ok {
		pod = r.GetPod().GetId()
	}
	if r, ok := c.Request.(*api.SynchronizeRequest); ok && len(r.GetPods()) > 0 {
		pod = r.GetPods()[0].GetId()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c.Plugin+" "+c.Method+" "+pod)
}

func (l *callLog) count(call string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.calls {
		if c == call {
			n++
		}
	}
	return n
}

// TestRestartPlugin: a pre-installed plugin restarted by RestartPlugin is
// a new process that synchronizes again with the live pod; an external one
// cannot be restarted. The call observer sees every call, with readable
// requests (also those encoded once for all plugins).
func TestRestartPlugin(t *testing.T) {
	t.Parallel()
	changes := newChangeLog()
	calls := &callLog{}
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithPluginCallObserver(calls.observe))
	e.preinstall("10", "pre", testplugin.Config{})
	e.start()
	e.external("20", "ext", testplugin.Config{})
	e.waitPlugins("10-pre", "20-ext")
	pid := e.a.Plugins()[0].PID

	ctx := context.Background()
	pod := testPod("pod-1")
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	e.store.mu.Lock()
	e.store.pods = append(e.store.pods, pod)
	e.store.mu.Unlock()

	if err := e.a.RestartPlugin(ctx, "10-pre"); err != nil {
		t.Fatalf("RestartPlugin: %v", err)
	}
	infos := e.a.Plugins()
	if len(infos) != 2 || infos[0].Plugin != "10-pre" || infos[0].PID == pid || infos[0].PID == 0 {
		t.Errorf("after the restart: %+v, want 10-pre with a new pid (was %d)", infos, pid)
	}
	var syncs [][]string
	for _, r := range e.records() {
		if r.Plugin == "pre" && r.Event == "Synchronize" {
			syncs = append(syncs, r.Pods)
		}
	}
	if len(syncs) != 2 || len(syncs[0]) != 0 || !slices.Equal(syncs[1], []string{"pod-1"}) {
		t.Errorf("10-pre's snapshots %v, want none then pod-1", syncs)
	}
	// joined, left restarted, joined
	if got := changes.waitFor(t, "10-pre", 3); !slices.Contains(got, "left : "+adaptation.ReasonRestarted) {
		t.Errorf("10-pre's changes %q lack its leave for %q", got, adaptation.ReasonRestarted)
	}

	if err := e.a.RestartPlugin(ctx, "20-ext"); !errors.Is(err, adaptation.ErrNotRestartable) {
		t.Errorf("restarting an external plugin: %v, want ErrNotRestartable", err)
	}
	if err := e.a.RestartPlugin(ctx, "30-none"); err == nil {
		t.Error("restarting a plugin that is not there succeeded")
	}
	for _, want := range []string{"10-pre RunPodSandbox pod-1", "20-ext RunPodSandbox pod-1", "10-pre Synchronize pod-1", "10-pre Shutdown "} {
		if calls.count(want) != 1 {
			t.Errorf("the observer saw %q %d times, want once: %q", want, calls.count(want), calls.calls)
		}
	}
	if calls.count("10-pre Configure ") != 2 {
		t.Errorf("the observer saw 10-pre configured %d times, want 2", calls.count("10-pre Configure "))
	}
}
