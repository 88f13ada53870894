// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// The dispatch benchmarks drive events through real plugin processes (the
// test plugin, launched from the plugin directory) with what a runtime runs
// in production: a logger that keeps warnings only (thrown away here) and no
// metrics recorder on the event path. The plugins keep no event log. Every
// pod and container comes from fakenode, with the labels, annotations,
// mounts and resources of a busy node. allocs/op and cpu-ns/op (CPU time
// of this process, user and system) count the runtime side only: the
// plugins are other processes.

// dispatchCase is a set of plugins: how many, and whether they also
// validate every container's adjustment.
type dispatchCase struct {
	plugins    int
	validating bool
}

func (c dispatchCase) String() string {
	if c.validating {
		return fmt.Sprintf("plugins=%d/validating", c.plugins)
	}
	return fmt.Sprintf("plugins=%d", c.plugins)
}

var dispatchCases = []dispatchCase{{1, false}, {1, true}, {3, false}, {3, true}}

// BenchmarkCreateContainer measures one CreateContainer: each plugin adds
// an annotation and an env variable, and with validating each plugin then
// validates the merged result.
func BenchmarkCreateContainer(b *testing.B) {
	for _, c := range dispatchCases {
		b.Run(c.String(), func(b *testing.B) { benchCreateContainer(b, c) })
	}
}

// BenchmarkCreateContainerFanOut is CreateContainer through three
// validating plugins, the case profiled most often.
func BenchmarkCreateContainerFanOut(b *testing.B) {
	benchCreateContainer(b, dispatchCase{3, true})
}

func benchCreateContainer(b *testing.B, c dispatchCase, opts ...adaptation.Option) {
	e := newBenchEnv(b, c, opts...)
	ctx := context.Background()
	pods, ctrs := fakenode.Node(1, b.N)
	pod := pods[0]
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		b.Fatal(err)
	}
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		rsp, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctrs[i]})
		if err != nil {
			b.Fatal(err)
		}
		if got := len(rsp.GetAdjust().GetAnnotations()); got != c.plugins {
			b.Fatalf("merged %d annotations, want %d", got, c.plugins)
		}
	}
}

// BenchmarkPodLifecycle measures the 11 events of a pod with one container,
// from RunPodSandbox to RemovePodSandbox; one op is the whole lifecycle.
func BenchmarkPodLifecycle(b *testing.B) {
	for _, c := range dispatchCases {
		b.Run(c.String(), func(b *testing.B) { benchPodLifecycle(b, c) })
	}
}

func benchPodLifecycle(b *testing.B, c dispatchCase) {
	e := newBenchEnv(b, c)
	pods, ctrs := fakenode.Node(b.N, 1)
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		if err := oneContainerPod(e.a, pods[i], ctrs[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// oneContainerPod is the runtime's side of one pod with one container.
func oneContainerPod(a *adaptation.Adaptation, pod *api.PodSandbox, ctr *api.Container) error {
	ctx := context.Background()
	res := &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}}}
	steps := []func() error{
		func() error { return a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}) },
		func() error {
			_, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
			return err
		},
		func() error {
			return a.PostCreateContainer(ctx, &api.PostCreateContainerRequest{Pod: pod, Container: ctr})
		},
		func() error { return a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: ctr}) },
		func() error {
			return a.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: pod, Container: ctr})
		},
		func() error {
			_, err := a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: ctr, LinuxResources: res})
			return err
		},
		func() error {
			return a.PostUpdateContainer(ctx, &api.PostUpdateContainerRequest{Pod: pod, Container: ctr})
		},
		func() error {
			_, err := a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
			return err
		},
		func() error { return a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}) },
		func() error { return a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}) },
		func() error { return a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// reportCPU starts the timed part of a benchmark; the function it returns
// reports the process's CPU time per op.
func reportCPU(b *testing.B) (stop func()) {
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// newBenchEnv starts a runtime with c's plugins, pre-installed, each adding
// an annotation and an env variable to every container it sees created.
func newBenchEnv(b *testing.B, c dispatchCase, opts ...adaptation.Option) *env {
	b.Helper()
	e := newEnv(b, append([]adaptation.Option{adaptation.WithLogger(productionLogger())}, opts...)...)
	e.metrics.quiet()
	events := "all"
	if !c.validating {
		events = api.MaskOf(api.Event_RUN_POD_SANDBOX, api.Event_UPDATE_POD_SANDBOX, api.Event_POST_UPDATE_POD_SANDBOX,
			api.Event_STOP_POD_SANDBOX, api.Event_REMOVE_POD_SANDBOX, api.Event_CREATE_CONTAINER,
			api.Event_POST_CREATE_CONTAINER, api.Event_START_CONTAINER, api.Event_POST_START_CONTAINER,
			api.Event_UPDATE_CONTAINER, api.Event_POST_UPDATE_CONTAINER, api.Event_STOP_CONTAINER,
			api.Event_REMOVE_CONTAINER).String()
	}
	var ids []string
	for i := range c.plugins {
		idx, name := fmt.Sprintf("%02d", 10*(i+1)), fmt.Sprintf("bench%d", i)
		cfg := e.plugin(idx, name, testplugin.Config{
			Events:      events,
			Annotations: map[string]string{"bench.nrikit.io/" + name: "1"},
			Env:         map[string]string{"BENCH_" + name: "1"},
		})
		cfg.LogPath = "" // no event log: the plugin answers as fast as it can
		path, err := testplugin.WriteConfig(e.dir, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := testplugin.WriteLauncher(e.pluginDir, idx, name, path); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, idx+"-"+name)
	}
	e.start()
	e.waitPlugins(ids...)
	return e
}
