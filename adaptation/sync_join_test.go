// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// seen is a compact view of what one plugin received: events with their pod
// or container id, snapshots with pod ids and states.
func (e *env) seen(name string) []string {
	var out []string
	for _, r := range testplugin.Of(e.records(), name) {
		switch r.Event {
		case "Configure", "Shutdown", "ValidateContainerAdjustment":
		case "Synchronize":
			var pods []string
			for _, id := range r.Pods {
				pods = append(pods, id+":"+strings.TrimPrefix(r.PodStates[id], "POD_SANDBOX_"))
			}
			out = append(out, fmt.Sprintf("Synchronize%v%v", pods, r.Containers))
		default:
			id := r.Pod
			if r.Container != "" {
				id = r.Container
			}
			out = append(out, r.Event+":"+id)
		}
	}
	return out
}

func (s *store) set(pods []*api.PodSandbox, ctrs []*api.Container) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods, s.ctrs = pods, ctrs
}

func withState(pod *api.PodSandbox, st api.PodSandboxState) *api.PodSandbox {
	pod.State = st
	return pod
}

const (
	ready   = api.PodSandboxState_POD_SANDBOX_READY
	unknown = api.PodSandboxState_POD_SANDBOX_UNKNOWN
)

// TestSyncTimingWindows: whatever the runtime's store lists when a plugin
// joins, the plugin hears of the pod exactly once, before its stop and
// removal.
func TestSyncTimingWindows(t *testing.T) {
	tests := []struct {
		name      string
		runBefore bool            // RunPodSandbox fan-out finished before the plugin joined
		listed    *api.PodSandbox // what the store lists at sync time (nil: nothing)
		want      []string
	}{
		{"listed ready after fan-out", true, withState(testPod("p"), ready),
			[]string{"Synchronize[p:READY][]", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"absent after fan-out", true, nil,
			[]string{"Synchronize[][]", "RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"unknown after fan-out", true, withState(testPod("p"), unknown),
			[]string{"Synchronize[p:UNKNOWN][]", "RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"listed ready before fan-out", false, withState(testPod("p"), ready),
			[]string{"Synchronize[p:READY][]", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"unknown before fan-out", false, withState(testPod("p"), unknown),
			[]string{"Synchronize[p:UNKNOWN][]", "RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"absent before fan-out", false, nil,
			[]string{"Synchronize[][]", "RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t)
			e.start()
			pod := testPod("p")
			if tt.runBefore {
				must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
			}
			if tt.listed != nil {
				e.store.set([]*api.PodSandbox{tt.listed}, nil)
			}
			e.external("10", "late", testplugin.Config{})
			e.waitPlugins("10-late")
			if !tt.runBefore {
				must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
			}
			must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
			if got := e.seen("late"); !slices.Equal(got, tt.want) {
				t.Fatalf("plugin saw\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

// gate is an in-process plugin whose RunPodSandbox blocks until released.
type gate struct {
	api.PluginService
	entered chan struct{}
	release chan struct{}
}

func (g *gate) Configure(context.Context, *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return &api.ConfigureResponse{Events: int32(api.MaskOf(api.Event_RUN_POD_SANDBOX))}, nil
}

func (g *gate) Synchronize(context.Context, *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{}, nil
}

func (g *gate) RunPodSandbox(context.Context, *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	close(g.entered)
	<-g.release
	return &api.RunPodSandboxResponse{}, nil
}

// TestSyncWaitsForFanOutInFlight: a plugin joining while a RunPodSandbox
// fan-out is in flight synchronizes after it, and is told of the pod the
// store does not list yet.
func TestSyncWaitsForFanOutInFlight(t *testing.T) {
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "05", Name: "gate", Handler: g}))
	e.start()
	pod := testPod("p")
	done := make(chan error, 1)
	go func() { done <- e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}) }()
	<-g.entered
	e.external("10", "late", testplugin.Config{})
	e.waitLogged(map[string]any{"plugin": "10-late"}) // registered; its sync must wait for the fan-out
	close(g.release)
	must(t, <-done)
	e.waitPlugins("05-gate", "10-late")
	want := []string{"Synchronize[][]", "RunPodSandbox:p"}
	if got := e.seen("late"); !slices.Equal(got, want) {
		t.Fatalf("plugin saw %v, want %v", got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSetupEventsGiveUpDuringSync: while a plugin synchronizes, a setup
// event whose caller gives up fails at once and reaches no plugin; a
// teardown event waits and is delivered once the synchronization ends.
func TestSetupEventsGiveUpDuringSync(t *testing.T) {
	e := newEnv(t)
	e.start()
	e.external("20", "fine", testplugin.Config{})
	e.waitPlugins("20-fine")

	syncing, release := make(chan struct{}), make(chan struct{})
	e.store.mu.Lock()
	e.store.afterCallback = func() {
		close(syncing)
		<-release
	}
	e.store.mu.Unlock()
	e.external("30", "joining", testplugin.Config{})
	<-syncing // the plugin synchronized but has not joined: events wait

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: testPod("pg")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("RunPodSandbox during a sync, caller gone = %v, want its deadline", err)
	}
	stopped := make(chan error, 1)
	go func() {
		stopped <- e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: testPod("old")})
	}()
	close(release)
	must(t, <-stopped)
	e.waitPlugins("20-fine", "30-joining")
	// The runtime undoes the creation it gave up on; no plugin heard of it.
	must(t, e.a.RemovePodSandbox(context.Background(), &api.RemovePodSandboxRequest{Pod: testPod("pg")}))

	events := func(name string) []string {
		return slices.DeleteFunc(e.seen(name), func(s string) bool { return strings.HasPrefix(s, "Synchronize") })
	}
	if got := events("fine"); !equal(got, []string{"StopPodSandbox:old"}) {
		t.Errorf("20-fine saw %v, want only the old pod's stop (teardown is never lost, the given-up pod never announced)", got)
	}
	// 30-joining may or may not have joined before the old pod's stop.
	if got := events("joining"); slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, ":pg") }) {
		t.Errorf("30-joining saw %v, want nothing of the given-up pod", got)
	}
}
