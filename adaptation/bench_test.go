// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/fakenode"
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

// productionLogger logs warnings only, as a runtime does by default, and
// throws them away: the benchmark measures the event path, not the test
// harness's debug log.
func productionLogger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.WarnLevel)
	return logrus.NewEntry(l)
}
