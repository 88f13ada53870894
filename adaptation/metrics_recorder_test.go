// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// refRecorder records what a reference-shaped Metrics implementation is told,
// keyed "plugin/operation".
type refRecorder struct {
	mu          sync.Mutex
	errs        map[string][]error
	latencies   map[string]int
	adjustments map[string][]bool // whether an adjustment was passed
	counts      []int
}

func newRefRecorder() *refRecorder {
	return &refRecorder{errs: map[string][]error{}, latencies: map[string]int{}, adjustments: map[string][]bool{}}
}

func (r *refRecorder) RecordPluginInvocation(plugin, op string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[plugin+"/"+op] = append(r.errs[plugin+"/"+op], err)
}

func (r *refRecorder) RecordPluginLatency(plugin, op string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies[plugin+"/"+op]++
}

func (r *refRecorder) RecordPluginAdjustments(plugin, op string, adjust *adaptation.ContainerAdjustment, _, _ int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adjustments[plugin+"/"+op] = append(r.adjustments[plugin+"/"+op], adjust != nil)
}

func (r *refRecorder) UpdatePluginCount(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts = append(r.counts, n)
}

func (r *refRecorder) invocations(key string) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs[key]...)
}

func TestMetricsRecorderGetsReferenceShapedCalls(t *testing.T) {
	rec := newRefRecorder()
	probe := newEnv(t)
	e := newEnvAt(t, probe,
		adaptation.WithMetricsRecorder(rec),
		adaptation.WithBuiltinPlugins(
			probe.builtin("10", "adjuster", testplugin.Config{Annotations: map[string]string{"a.example/x": "1"}}),
			probe.builtin("20", "failer", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
				"StartContainer": {Fail: "no start for you"},
			}}),
		))
	e.start()
	e.waitPlugins("10-adjuster", "20-failer")

	pod := testPod("mr")
	ctr := testContainer("mr-c", pod)
	ctx := context.Background()
	if err := e.a.RunPodSandbox(ctx, &adaptation.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.CreateContainer(ctx, &adaptation.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Fatal(err)
	}
	if err := e.a.StartContainer(ctx, &adaptation.StartContainerRequest{Pod: pod, Container: ctr}); err == nil {
		t.Fatal("StartContainer succeeded though 20-failer failed it")
	}

	if errs := rec.invocations("10-adjuster/RunPodSandbox"); len(errs) != 1 || errs[0] != nil {
		t.Errorf("10-adjuster/RunPodSandbox invocations = %v, want one without error", errs)
	}
	errs := rec.invocations("20-failer/StartContainer")
	if len(errs) != 1 || status.Code(errs[0]) != codes.Unknown {
		t.Errorf("20-failer/StartContainer invocations = %v, want one status error with code Unknown", errs)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if got := rec.adjustments["10-adjuster/CreateContainer"]; len(got) != 1 || !got[0] {
		t.Errorf("10-adjuster/CreateContainer adjustments = %v, want one with an adjustment", got)
	}
	if rec.latencies["20-failer/StartContainer"] != 1 {
		t.Errorf("latencies = %v, want one for 20-failer/StartContainer", rec.latencies)
	}
	if n := len(rec.counts); n == 0 || rec.counts[n-1] != 2 {
		t.Errorf("plugin counts = %v, want the last to be 2", rec.counts)
	}
}
