// SPDX-License-Identifier: Apache-2.0

package scope

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestParse: every documented name is a class, an empty list allows
// nothing, and a name that is no class's is refused naming it.
func TestParse(t *testing.T) {
	all, err := Parse(Names())
	if err != nil || all != All {
		t.Fatalf("Parse(every name) = %v, %v; want All", all, err)
	}
	if s, err := Parse([]string{}); err != nil || s != 0 {
		t.Errorf("Parse([]) = %v, %v; want nothing allowed", s, err)
	}
	s, err := Parse([]string{"env", "annotations", "env"})
	if err != nil || s != Of(Env, Annotations) || !slices.Equal(s.Names(), []string{"annotations", "env"}) {
		t.Errorf("Parse(env, annotations, env) = %v (%v), %v", s, s.Names(), err)
	}
	for _, bad := range []string{"Env", "environment", "", "linux.resources"} {
		if _, err := Parse([]string{"env", bad}); err == nil || !strings.Contains(err.Error(), `"`+bad+`" is not a class`) {
			t.Errorf("Parse(env, %q) = %v, want refused naming it", bad, err)
		}
	}
	if _, err := Parse(make([]string, maxNames+1)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an overlong list: %v, want refused saying how many", err)
	}
	if len(Names()) != int(numClasses) || strings.Contains(strings.Join(Names(), ""), "class(") {
		t.Errorf("Names() = %v: every class needs a name", Names())
	}
}

// TestAdjustmentTouches: each field of an adjustment is its class; empty
// parts touch nothing.
func TestAdjustmentTouches(t *testing.T) {
	for _, tc := range []struct {
		a    *api.ContainerAdjustment
		want Set
	}{
		{nil, 0},
		{&api.ContainerAdjustment{}, 0},
		{&api.ContainerAdjustment{Annotations: map[string]string{"-a": ""}}, Of(Annotations)},
		{&api.ContainerAdjustment{Env: []*api.KeyValue{{Key: "A"}}}, Of(Env)},
		{&api.ContainerAdjustment{Mounts: []*api.Mount{{}}}, Of(Mounts)},
		{&api.ContainerAdjustment{Args: []string{"sh"}}, Of(Args)},
		{&api.ContainerAdjustment{Hooks: &api.Hooks{}}, 0},
		{&api.ContainerAdjustment{Hooks: &api.Hooks{Prestart: []*api.Hook{{Path: "/x"}}}}, Of(Hooks)},
		{&api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{{}}}, Of(Rlimits)},
		{&api.ContainerAdjustment{CDIDevices: []*api.CDIDevice{{}}}, Of(CDIDevices)},
		{&api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{}}, 0},
		{&api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{}}}, 0},
		{&api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{Memory: &api.LinuxMemory{Limit: api.Int64(1)}}}}, Of(Resources)},
		{&api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{
			Devices: []*api.LinuxDevice{{}}, CgroupsPath: "/x", OomScoreAdj: api.Int(1), IoPriority: &api.LinuxIOPriority{},
			SeccompPolicy: &api.LinuxSeccomp{}, Namespaces: []*api.LinuxNamespace{{}}, Sysctl: map[string]string{"a": "b"},
			NetDevices: map[string]*api.LinuxNetDevice{"eth1": {}}, Scheduler: &api.LinuxScheduler{}, Rdt: &api.LinuxRdt{},
			MemoryPolicy: &api.LinuxMemoryPolicy{},
		}}, Of(Devices, CgroupsPath, OOMScore, IOPriority, Seccomp, Namespaces, Sysctl, NetDevices, Scheduler, RDT, MemoryPolicy)},
	} {
		if got := Adjustment(tc.a); got != tc.want {
			t.Errorf("Adjustment(%v) = %v, want %v", tc.a, got, tc.want)
		}
	}
}

// TestRepliesTouch: updates of other containers are updates, the updated
// container's own resources are resources, evictions are evictions.
func TestRepliesTouch(t *testing.T) {
	res := &api.LinuxContainerUpdate{Resources: &api.LinuxResources{Pids: &api.LinuxPids{Limit: 5}}}
	if got := Create(&api.CreateContainerResponse{
		Adjust: &api.ContainerAdjustment{Env: []*api.KeyValue{{Key: "A"}}},
		Update: []*api.ContainerUpdate{{ContainerId: "other", Linux: res}},
		Evict:  []*api.ContainerEviction{{ContainerId: "x"}},
	}); got != Of(Env, Updates, Evictions) {
		t.Errorf("Create: %v", got)
	}
	if got := Create(nil); got != 0 {
		t.Errorf("Create(nil): %v", got)
	}
	own := &api.ContainerUpdate{ContainerId: "c1", Linux: res}
	if got := Update(&api.UpdateContainerResponse{Update: []*api.ContainerUpdate{own}}, "c1"); got != Of(Resources) {
		t.Errorf("Update of the updated container: %v, want resources", got)
	}
	if got := Update(&api.UpdateContainerResponse{Update: []*api.ContainerUpdate{{ContainerId: "c1"}}}, "c1"); got != 0 {
		t.Errorf("an empty entry for the updated container: %v, want nothing", got)
	}
	if got := Update(&api.UpdateContainerResponse{Update: []*api.ContainerUpdate{own, nil}, Evict: []*api.ContainerEviction{{}}}, "c2"); got != Of(Updates, Evictions) {
		t.Errorf("Update of another container, an eviction: %v", got)
	}
	if got := Stop(&api.StopContainerResponse{Update: []*api.ContainerUpdate{own}}); got != Of(Updates) {
		t.Errorf("Stop: %v", got)
	}
	if got := ContainerUpdates([]*api.ContainerUpdate{nil}); got != 0 {
		t.Errorf("ContainerUpdates(nil entry): %v", got)
	}
}

// TestCheck names every class outside the scope, and the scope.
func TestCheck(t *testing.T) {
	if err := Check(All, All); err != nil {
		t.Errorf("All allows everything: %v", err)
	}
	if err := Check(Of(Env), Of(Env)); err != nil {
		t.Errorf("env allowed, env touched: %v", err)
	}
	err := Check(Of(Env), Of(Env, Annotations, Evictions))
	var oe *OutsideError
	if !errors.Is(err, ErrOutOfScope) || !errors.As(err, &oe) || oe.Outside != Of(Annotations, Evictions) {
		t.Fatalf("Check = %v", err)
	}
	if want := "change outside the plugin's scope: annotations, evictions, not in its allow list [env]"; !strings.Contains(err.Error(), want) {
		t.Errorf("%q lacks %q", err, want)
	}
	if err := Check(0, Of(Updates)); err == nil || !strings.Contains(err.Error(), "updates, not in its allow list []") {
		t.Errorf("an observe-only plugin's update: %v", err)
	}
}
