// SPDX-License-Identifier: Apache-2.0

// What rolling plugins out costs the runtime: an observer's latency is not added to
// CreateContainer, and a plugin whose scope leaves a pod out is not called for it.

package adaptation_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// benchPlugin is one plugin of a rollout benchmark.
type benchPlugin struct {
	idx, name string
	cfg       testplugin.Config
}

// newRolloutBenchEnv starts the plugins, keeping no event log, with the
// production logger and opts.
func newRolloutBenchEnv(b *testing.B, plugins []benchPlugin, opts ...adaptation.Option) *env {
	b.Helper()
	e := newEnv(b, append([]adaptation.Option{adaptation.WithLogger(productionLogger())}, opts...)...)
	e.metrics.quiet()
	var ids []string
	for _, p := range plugins {
		cfg := e.plugin(p.idx, p.name, p.cfg)
		cfg.LogPath = ""
		path, err := testplugin.WriteConfig(e.dir, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := testplugin.WriteLauncher(e.pluginDir, p.idx, p.name, path); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, p.idx+"-"+p.name)
	}
	e.start()
	e.waitPlugins(ids...)
	return e
}

// adjuster is a plugin that adjusts every creation, as the dispatch
// benchmarks' do.
var adjuster = benchPlugin{"10", "adjust", testplugin.Config{Events: "createcontainer",
	Annotations: map[string]string{"bench.nrikit.io/adjust": "1"}, Env: map[string]string{"BENCH": "1"}}}

// BenchmarkCreateContainerObserved is CreateContainer through one plugin,
// alone and beside an observer that takes 20 ms per event (about 80 times
// a CreateContainer's p50): two runtimes, whose creations alternate so
// that both see the same machine. It reports each one's p50 and p99, and
// the difference of the p99s, which the observer should not move: the
// runtime never waits for it. Run it with -benchtime 1000x: the
// observer's queue (1024 events) is not drained, Stop gives it no time.
func BenchmarkCreateContainerObserved(b *testing.B) {
	audit := benchPlugin{"05", "audit", testplugin.Config{Events: "createcontainer", Delay: "20ms"}}
	plain := newRolloutBenchEnv(b, []benchPlugin{adjuster})
	observed := newRolloutBenchEnv(b, []benchPlugin{audit, adjuster}, observe("05-audit"))
	ctx := context.Background()
	pods, ctrs := fakenode.Node(1, b.N)
	for _, e := range []*env{plain, observed} {
		if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pods[0]}); err != nil {
			b.Fatal(err)
		}
	}
	took := [2][]time.Duration{make([]time.Duration, b.N), make([]time.Duration, b.N)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, e := range []*env{plain, observed} {
			start := time.Now()
			if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pods[0], Container: ctrs[i]}); err != nil {
				b.Fatal(err)
			}
			took[j][i] = time.Since(start)
		}
	}
	b.StopTimer()
	if q := queueOf(observed.a, "05-audit"); q == nil || q.Delivered == 0 {
		b.Fatalf("the observer's queue %+v: it was not delivered to", q)
	}
	observed.stopWithin(100 * time.Millisecond)
	p50, p99 := quantiles(took[0])
	op50, op99 := quantiles(took[1])
	b.ReportMetric(p50, "p50-µs")
	b.ReportMetric(p99, "p99-µs")
	b.ReportMetric(op50, "observed-p50-µs")
	b.ReportMetric(op99, "observed-p99-µs")
	b.ReportMetric(op99-p99, "p99-delta-µs")
}

// quantiles are the p50 and p99 of took, in µs.
func quantiles(took []time.Duration) (p50, p99 float64) {
	took = slices.Clone(took)
	slices.Sort(took)
	return float64(took[len(took)/2].Nanoseconds()) / 1e3, float64(took[len(took)*99/100].Nanoseconds()) / 1e3
}

// BenchmarkCreateContainerFiltered is CreateContainer through two plugins
// that adjust it, in a pod of runtime handler runc: unfiltered, and with
// the second one's scope runtime_handlers = ["nvidia"]. It reports the
// plugin calls per creation: two, then one.
func BenchmarkCreateContainerFiltered(b *testing.B) {
	gpu := benchPlugin{"20", "gpu", testplugin.Config{Events: "createcontainer", Annotations: map[string]string{"bench.nrikit.io/gpu": "1"}}}
	for _, filtered := range []bool{false, true} {
		name := "filter=none"
		var opts []adaptation.Option
		if filtered {
			name = "filter=out-of-scope"
			opts = append(opts, gpuOnly("20-gpu"))
		}
		b.Run(name, func(b *testing.B) {
			e := newRolloutBenchEnv(b, []benchPlugin{adjuster, gpu}, opts...)
			ctx := context.Background()
			pods, ctrs := fakenode.Node(1, b.N)
			pods[0].RuntimeHandler = "runc"
			if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pods[0]}); err != nil {
				b.Fatal(err)
			}
			stop := reportCPU(b)
			for i := 0; i < b.N; i++ {
				if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pods[0], Container: ctrs[i]}); err != nil {
					b.Fatal(err)
				}
			}
			stop()
			b.ReportMetric(float64(createCalls(e.a))/float64(b.N), "plugin-calls/op")
		})
	}
}

// createCalls counts the CreateContainer calls Status shows, all plugins
// together.
func createCalls(a *adaptation.Adaptation) uint64 {
	var n uint64
	for _, p := range a.Status().Plugins {
		for _, c := range p.Calls {
			if c.Event == api.Event_CREATE_CONTAINER.Name() {
				n += c.Total
			}
		}
	}
	return n
}
