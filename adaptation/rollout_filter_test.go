// SPDX-License-Identifier: Apache-2.0

// Plugins' scopes of pods (plugin_settings filter), with real plugin processes: exactly the pods
// in scope reach a plugin, in its events and its snapshot; what it may change stays in scope.

package adaptation_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// gpuOnly gives key the scope of the pods of runtime handler nvidia.
func gpuOnly(key string) adaptation.Option {
	return adaptation.WithPluginSettings(key, adaptation.PluginSettings{Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{"nvidia"}}})
}

// handlerPod is pod id, run by runtime handler nvidia when gpu is set.
func handlerPod(id string, gpu bool) *api.PodSandbox {
	pod := testPod(id)
	pod.RuntimeHandler = "runc"
	if gpu {
		pod.RuntimeHandler = "nvidia"
	}
	return pod
}

// pods lists the pods a plugin's events named, in the order it first
// heard of each.
func podsOf(recs []testplugin.Record, name string) []string {
	var out []string
	for _, r := range recs {
		if r.Plugin == name && r.Pod != "" && !slices.Contains(out, r.Pod) {
			out = append(out, r.Pod)
		}
	}
	return out
}

// 10-gpu (runtime_handlers = ["nvidia"]) and 20-all over 100 pods, 10 of
// them nvidia: 10-gpu gets exactly those 10 pods' events, 20-all all 100;
// for the others, CreateContainer makes one plugin call, not two.
func TestFilterDeliversExactlyThePodsInScope(t *testing.T) {
	e := newEnv(t, gpuOnly("10-gpu"))
	e.preinstall("10", "gpu", testplugin.Config{})
	e.preinstall("20", "all", testplugin.Config{})
	e.start()
	e.waitPlugins("10-gpu", "20-all")
	var gpuPods, allPods []string
	for i := range 100 {
		pod := handlerPod(fmt.Sprintf("pod%02d", i), i%10 == 0)
		runLifecycleOf(t, e.a, pod)
		allPods = append(allPods, pod.Id)
		if i%10 == 0 {
			gpuPods = append(gpuPods, pod.Id)
		}
	}
	recs := e.records()
	if got := podsOf(recs, "gpu"); !slices.Equal(got, gpuPods) {
		t.Errorf("10-gpu heard of pods %v, want %v", got, gpuPods)
	}
	if got := podsOf(recs, "all"); !slices.Equal(got, allPods) {
		t.Errorf("20-all heard of %d pods, want all 100", len(got))
	}
	if got, want := len(e.events("gpu")), 10*len(fullLifecycleEvents); got != want {
		t.Errorf("10-gpu got %d events, want %d: every event of its 10 pods", got, want)
	}
	calls := func(id string) int { return e.metrics.count(id, api.Event_CREATE_CONTAINER, adaptation.OutcomeOK) }
	if calls("10-gpu") != 2*10 || calls("20-all") != 2*100 {
		t.Errorf("CreateContainer calls: 10-gpu %d, 20-all %d; want 20 and 200", calls("10-gpu"), calls("20-all"))
	}
	if info := e.a.Plugins()[0]; info.Filter == nil || !slices.Equal(info.Filter.RuntimeHandlers, []string{"nvidia"}) {
		t.Errorf("PluginInfo of 10-gpu shows filter %+v", info.Filter)
	}
}

// 10-gpu joining a node of 1,000 pods, 100 of them nvidia, is told exactly
// those 100 and their containers.
func TestFilterSnapshotHoldsExactlyThePodsInScope(t *testing.T) {
	e := newEnv(t, gpuOnly("10-gpu"))
	var pods, want []*api.PodSandbox
	var ctrs []*api.Container
	var wantCtrs []string
	for i := range 1000 {
		pod := handlerPod(fmt.Sprintf("pod%03d", i), i%10 == 3)
		pod.State = api.PodSandboxState_POD_SANDBOX_READY
		ctr := testContainer(pod.Id+"-c", pod)
		pods, ctrs = append(pods, pod), append(ctrs, ctr)
		if i%10 == 3 {
			want, wantCtrs = append(want, pod), append(wantCtrs, ctr.Id)
		}
	}
	e.store.pods, e.store.ctrs = pods, ctrs
	e.preinstall("10", "gpu", testplugin.Config{})
	e.start()
	e.waitPlugins("10-gpu")
	var sync testplugin.Record
	for _, r := range e.records() {
		if r.Plugin == "gpu" && r.Event == testplugin.KeySynchronize {
			sync = r
		}
	}
	var wantPods []string
	for _, p := range want {
		wantPods = append(wantPods, p.Id)
	}
	if !slices.Equal(sync.Pods, wantPods) || !slices.Equal(sync.Containers, wantCtrs) {
		t.Errorf("its snapshot: %d pods, %d containers; want exactly the 100 nvidia pods and their containers", len(sync.Pods), len(sync.Containers))
	}
	// Their later events reach it, the others' do not.
	ctx := context.Background()
	for _, p := range pods[:20] {
		if err := e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: p}); err != nil {
			t.Fatal(err)
		}
	}
	if got := podsOf(e.records(), "gpu"); !slices.Equal(got, []string{"pod003", "pod013"}) {
		t.Errorf("the stops of pods %v reached it, want pod003 and pod013", got)
	}
}

// A filtered plugin acts only in its scope: its UpdateContainers entries
// for a container outside it fail, and so do the updates of such a
// container in its replies, both logged; the others go through.
func TestFilteredPluginChangesOnlyItsScope(t *testing.T) {
	e := newEnv(t, gpuOnly("30-gpu"))
	e.preinstall("10", "all", testplugin.Config{})
	e.start()
	ctx := context.Background()
	cpu, gpu := handlerPod("cpu", false), handlerPod("gpu", true)
	cpuCtr, gpuCtr := testContainer("cpu-c", cpu), testContainer("gpu-c", gpu)
	p, err := testplugin.Start(ctx, dialSocket(t, e.socket), e.plugin("30", "gpu", testplugin.Config{
		CreateUpdates: []testplugin.Update{{ContainerID: "cpu-c", CPUShares: 100}, {ContainerID: "gpu-c", CPUShares: 200}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	e.waitPlugins("10-all", "30-gpu")
	for _, pc := range []struct {
		pod *api.PodSandbox
		ctr *api.Container
	}{{cpu, cpuCtr}, {gpu, gpuCtr}} {
		if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pc.pod}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pc.pod, Container: pc.ctr}); err != nil {
			t.Fatal(err)
		}
	}
	// A third creation, in its scope: its reply updates both containers.
	rsp, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: gpu, Container: testContainer("gpu-d", gpu)})
	if err != nil {
		t.Fatal(err)
	}
	var updated []string
	for _, u := range rsp.GetUpdate() {
		updated = append(updated, u.GetContainerId())
	}
	if !slices.Equal(updated, []string{"gpu-c"}) {
		t.Errorf("the merged reply updates %v, want only gpu-c: cpu-c is outside 30-gpu's scope", updated)
	}
	failed, err := p.UpdateContainers(ctx, []*api.ContainerUpdate{
		testplugin.Update{ContainerID: "cpu-c", CPUShares: 300}.ContainerUpdate(),
		testplugin.Update{ContainerID: "gpu-c", CPUShares: 400}.ContainerUpdate(),
	})
	if err != nil || len(failed) != 1 || failed[0].GetContainerId() != "cpu-c" {
		t.Errorf("UpdateContainers failed %v, %v; want cpu-c alone", failed, err)
	}
	e.store.mu.Lock()
	handed := e.store.updates
	e.store.mu.Unlock()
	if len(handed) != 1 || len(handed[0]) != 1 || handed[0][0].GetContainerId() != "gpu-c" {
		t.Errorf("the runtime's UpdateFn got %v, want gpu-c's update alone", handed)
	}
	lines := e.waitLoggedWhere("the dropped update", func(en *logrus.Entry) bool {
		return strings.Contains(en.Message, "container not in plugin 30-gpu's scope")
	}, nil)
	if len(lines) != 1 {
		t.Errorf("%d lines about dropped entries within the minute, want 1", len(lines))
	}
}

// A required plugin whose filter leaves a pod out fails the creation of its
// containers, saying why; the readiness gate does not hold that pod for it.
func TestRequiredPluginOutsideItsScope(t *testing.T) {
	e := newEnv(t, gpuOnly("10-gpu"),
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"gpu"}}),
		adaptation.WithPluginReadiness(adaptation.ReadinessConfig{Wait: adaptation.Duration(waitLimit)}))
	e.start()
	cpu := handlerPod("cpu", false)
	// Not connected yet: a pod outside its scope does not wait for it.
	withinWaitLimit(t, "AwaitPlugins", func() {
		if err := e.a.AwaitPlugins(context.Background(), cpu); err != nil {
			t.Errorf("AwaitPlugins of a pod outside the required plugin's scope: %v", err)
		}
	})
	e.preinstall("10", "gpu", testplugin.Config{})
	// (Started once: the pre-installed plugin comes with a restart of the runtime.)
	e.stop()
	e.start()
	e.waitPlugins("10-gpu")
	ctx := context.Background()
	gpu := handlerPod("gpu", true)
	for _, pod := range []*api.PodSandbox{cpu, gpu} {
		if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
			t.Fatalf("RunPodSandbox %s: %v", pod.Id, err)
		}
	}
	if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: gpu, Container: testContainer("gpu-c", gpu)}); err != nil {
		t.Errorf("a creation in the required plugin's scope: %v", err)
	}
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: cpu, Container: testContainer("cpu-c", cpu)})
	if err == nil || !strings.Contains(err.Error(), "required plugin gpu: pod default/pod-cpu not in its scope") {
		t.Errorf("a creation outside the required plugin's scope: %v, want it failed saying so", err)
	}
}

// A filtered validator validates only the creations in its scope: one
// that rejects everything fails those alone.
func TestFilteredValidatorValidatesItsScopeOnly(t *testing.T) {
	e := newEnv(t, gpuOnly("50-policy"))
	e.preinstall("50", "policy", testplugin.Config{Events: "validatecontaineradjustment", Reject: "no gpus today"})
	e.start()
	e.waitPlugins("50-policy")
	ctx := context.Background()
	for _, gpu := range []bool{false, true} {
		pod := handlerPod(fmt.Sprint("gpu-", gpu), gpu)
		if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
			t.Fatal(err)
		}
		_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(pod.Id+"-c", pod)})
		if inScope := gpu; inScope != (err != nil) || err != nil && !strings.Contains(err.Error(), "no gpus today") {
			t.Errorf("creation in the nvidia pod %v: %v; want it rejected only in the validator's scope", gpu, err)
		}
	}
	if got := e.events("policy"); !slices.Equal(got, []string{"ValidateContainerAdjustment"}) {
		t.Errorf("the validator got %v, want one validation", got)
	}
}

// A built-in plugin's own filter scopes it; the operator's replaces it.
func TestBuiltinPluginFilter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings []adaptation.Option
		want     int32 // creations it takes: of the runc pod, the nvidia one
	}{
		{"its own", nil, 1},
		{"the operator's", []adaptation.Option{adaptation.WithPluginSettings("memcap", adaptation.PluginSettings{
			Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{"runc", "nvidia"}}})}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memCapper{name: "memcap"}
			b := adaptation.BuiltinPlugin{Index: "10", Name: "memcap", Handler: m, Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{"nvidia"}}}
			e := newEnv(t, append(tc.settings, adaptation.WithBuiltinPlugins(b))...)
			e.start()
			e.waitPlugins("10-memcap")
			ctx := context.Background()
			for _, gpu := range []bool{false, true} {
				pod := handlerPod(fmt.Sprint("gpu-", gpu), gpu)
				must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
				_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(pod.Id+"-c", pod)})
				must(t, err)
			}
			if got := m.created.Load(); got != tc.want {
				t.Errorf("it took %d creations, want %d", got, tc.want)
			}
			if f := e.a.Plugins()[0].Filter; f == nil {
				t.Error("PluginInfo shows no filter")
			}
		})
	}
}
