// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// eventGate is a built-in plugin whose RunPodSandbox and CreateContainer wait
// until released, telling the test when one has begun.
type eventGate struct {
	api.PluginService
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func (g *eventGate) wait(ctx context.Context) error {
	g.once.Do(func() { close(g.entered) })
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *eventGate) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	if err := g.wait(ctx); err != nil {
		return nil, err
	}
	return g.PluginService.RunPodSandbox(ctx, req)
}

func (g *eventGate) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if err := g.wait(ctx); err != nil {
		return nil, err
	}
	return g.PluginService.CreateContainer(ctx, req)
}

// TestPluginGoneBeforeItsTurnIsSkipped: a plugin whose connection ends
// while an earlier plugin handles the same event is skipped when its turn
// comes, as the reference skips closed plugins, so that its idle disconnect
// never fails the event, whatever the timing.
func TestPluginGoneBeforeItsTurnIsSkipped(t *testing.T) {
	pod := testPod("p")
	cases := []struct {
		name   string
		leaver testplugin.Config
		event  func(a *adaptation.Adaptation) error
	}{
		{
			name:   "fail_request plugin, setup event",
			leaver: testplugin.Config{FailurePolicy: &testplugin.FailurePolicy{FailRequest: true}},
			event: func(a *adaptation.Adaptation) error {
				return a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod})
			},
		},
		{
			name:   "validator",
			leaver: testplugin.Config{Events: "validatecontaineradjustment"},
			event: func(a *adaptation.Adaptation) error {
				_, err := a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c", pod)})
				return err
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			probe := newEnv(t)
			g := &eventGate{
				PluginService: probe.builtin("10", "gate", testplugin.Config{}).Handler,
				entered:       make(chan struct{}),
				release:       make(chan struct{}),
			}
			e := newEnvAt(t, probe,
				adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "gate", Handler: g}),
				adaptation.WithRequestTimeout(time.Minute)) // the gate's wait is not a timeout
			e.start()
			leaver := e.external("20", "leaver", tc.leaver)
			e.waitPlugins("10-gate", "20-leaver")

			done := make(chan error, 1)
			go func() { done <- tc.event(e.a) }()
			select {
			case <-g.entered:
			case <-time.After(waitLimit):
				t.Fatal("the gate plugin never got the event")
			}
			if err := leaver.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			e.waitPlugins("10-gate") // nrikit noticed the disconnect and dropped it
			close(g.release)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("event failed: %v; a plugin gone before its turn must be skipped", err)
				}
			case <-time.After(waitLimit):
				t.Fatal("the event did not return")
			}
		})
	}
}
