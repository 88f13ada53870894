package adaptation_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// BenchmarkSyncBigNode measures how long a reference-stub plugin takes to
// join a node of 10,000 pods and 50,000 containers (about 120 MB encoded)
// with nrikit's default settings, and the runtime's peak heap while it does.
// The collector runs at GOGC=10 so that the peak shows what sync keeps
// alive, not how much garbage the default GOGC lets pile up.
func BenchmarkSyncBigNode(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	b.ReportAllocs()
	pods, ctrs := fakenode.Node(10000, 5)
	b.ReportMetric(float64(fakenode.Size(pods, ctrs))/(1<<20), "state-MB")
	runtime.GC()
	base := heapBytes()
	var peak uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := newEnv(b)
		e.store.set(pods, ctrs)
		e.start()
		sampler := sampleHeap()
		b.StartTimer()
		e.refExternal("modern", "10", "big", "events=RunPodSandbox")
		e.waitPlugins("10-big")
		b.StopTimer()
		peak = max(peak, sampler())
		e.stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-over-state-MB")
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap samples the live heap every millisecond until the returned
// function is called, which reports the peak.
func sampleHeap() func() uint64 {
	var (
		mu   sync.Mutex
		peak uint64
	)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				h := heapBytes()
				mu.Lock()
				peak = max(peak, h)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// BenchmarkCreateContainerFanOut measures one CreateContainer through three
// plugin processes subscribed to every event (so each event is also
// validated by all three), each adding an annotation and an env variable.
func BenchmarkCreateContainerFanOut(b *testing.B) {
	e := newEnv(b, adaptation.WithLogger(productionLogger()))
	for _, name := range []string{"10-a", "20-b", "30-c"} {
		e.preinstall(name[:2], name[3:], testplugin.Config{
			Annotations: map[string]string{"bench.nrikit.io/" + name: "1"},
			Env:         map[string]string{"BENCH_" + name[3:]: "1"},
		})
	}
	e.start()
	ctx := context.Background()
	pod := testPod("bench")
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctr := testContainer(fmt.Sprintf("c%d", i), pod)
		if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
			b.Fatal(err)
		}
	}
}

// productionLogger logs warnings only, as a runtime does by default, and
// throws them away: the benchmark measures the event path, not the test
// harness's debug log.
func productionLogger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.WarnLevel)
	return logrus.NewEntry(l)
}
