// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func withUpdates(us ...*api.ContainerUpdate) *api.CreateContainerResponse {
	return &api.CreateContainerResponse{Update: us}
}

func TestCreateUpdates(t *testing.T) {
	runCreateCases(t, []createCase{{
		name: "one merged entry per container, order of first sight",
		replies: []reply{
			{pa, withUpdates(upd("c1", false, memLimit(1)), upd("c2", false, cpuShares(2)))},
			{pb, withUpdates(upd("c3", false, memLimit(3)), upd("c1", false, cpuShares(4)))},
		},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			got := c.Response().Update
			if len(got) != 3 || got[0].ContainerId != "c1" || got[1].ContainerId != "c2" || got[2].ContainerId != "c3" {
				t.Fatalf("updates = %v", got)
			}
			want := upd("c1", false, &api.LinuxResources{
				Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1}},
				Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 4}},
			})
			mustEqual(t, "c1", got[0], want)
			o := c.Owners()
			if owner(o, "c1", api.Field_MemLimit, "") != pa || owner(o, "c1", api.Field_CPUShares, "") != pb {
				t.Errorf("owners = %v", o)
			}
		},
	}, {
		name: "conflict fails",
		replies: []reply{
			{pa, withUpdates(upd("c1", false, memLimit(1)))},
			{pb, withUpdates(upd("c1", false, memLimit(2)))},
		},
		err:  ErrConflict,
		text: `update of container "c1": plugins "10-a" and "20-b" both tried to set memory limit`,
	}, {
		name: "conflict with ignore_failure is discarded",
		replies: []reply{
			{pa, withUpdates(upd("c1", false, memLimit(1)))},
			{pb, withUpdates(upd("c1", true, &api.LinuxResources{
				Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 9}},
				Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 2}},
			}), upd("c2", false, memLimit(5)))},
			// Deviation: the discarded update's CPU claim was rolled back.
			{pc, withUpdates(upd("c1", false, cpuShares(7)))},
		},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			got := c.Response().Update
			mustEqual(t, "c1", got[0], upd("c1", false, &api.LinuxResources{
				Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1}},
				Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 7}},
			}))
			mustEqual(t, "c2", got[1], upd("c2", false, memLimit(5)))
			if d := c.Discarded(); len(d) != 1 || !errors.Is(d[0], ErrConflict) {
				t.Errorf("discarded = %v", d)
			}
		},
	}, {
		name: "ignore_failure is the AND over contributions",
		replies: []reply{
			{pa, withUpdates(upd("c1", true, memLimit(1)), upd("c2", true, memLimit(1)))},
			{pb, withUpdates(upd("c1", true, cpuShares(2)), upd("c2", false, cpuShares(2)))},
		},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			got := c.Response().Update
			if !got[0].IgnoreFailure || got[1].IgnoreFailure {
				t.Errorf("updates = %v", got)
			}
		},
	}, {
		// Deviation from the reference's pids quirk: a plugin's pids change is
		// merged and owned like any simple field.
		name: "pids merged with normal ownership",
		replies: []reply{
			{pa, withUpdates(upd("c1", false, &api.LinuxResources{Pids: &api.LinuxPids{Limit: 10}}))},
			{pb, withUpdates(upd("c1", false, memLimit(2)))},
		},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			got := c.Response().Update[0].Linux.Resources
			if got.Pids.GetLimit() != 10 || got.Memory.Limit.GetValue() != 2 {
				t.Errorf("resources = %v", got)
			}
			if o := owner(c.Owners(), "c1", api.Field_PidsLimit, ""); o != pa {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name: "pids conflict",
		replies: []reply{
			{pa, withUpdates(upd("c1", false, &api.LinuxResources{Pids: &api.LinuxPids{Limit: 10}}))},
			{pb, withUpdates(upd("c1", false, &api.LinuxResources{Pids: &api.LinuxPids{Limit: 20}}))},
		},
		err: ErrConflict,
	}, {
		name: "cgroup device rules are not merged from updates",
		replies: []reply{{pa, withUpdates(upd("c1", false, &api.LinuxResources{
			Devices: []*api.LinuxDeviceCgroup{{Allow: true}},
		}))}},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			if got := c.Response().Update[0].Linux.Resources.Devices; len(got) != 0 {
				t.Errorf("devices = %v", got)
			}
		},
	}, {
		name:    "update of the container being created fails",
		replies: []reply{{pa, withUpdates(upd(ctrID, true, memLimit(1)))}},
		err:     ErrInvalidAdjustment,
		text:    `update of container "ctr0" during its creation`,
	}, {
		name:    "update without container ID",
		replies: []reply{{pa, withUpdates(upd("", true, memLimit(1)))}},
		err:     ErrInvalidAdjustment,
	}, {
		name:    "nil update",
		replies: []reply{{pa, withUpdates(nil)}},
		err:     ErrInvalidAdjustment,
	}, {
		name: "evictions are concatenated",
		replies: []reply{
			{pa, &api.CreateContainerResponse{Evict: []*api.ContainerEviction{{ContainerId: "c1", Reason: "a"}}}},
			{pb, &api.CreateContainerResponse{Evict: []*api.ContainerEviction{{ContainerId: "c2", Reason: "b"}}}},
		},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			if got := c.Response().Evict; len(got) != 2 || got[1].Reason != "b" {
				t.Errorf("evict = %v", got)
			}
		},
	}, {
		name:    "nil eviction",
		replies: []reply{{pa, &api.CreateContainerResponse{Evict: []*api.ContainerEviction{nil}}}},
		err:     ErrInvalidAdjustment,
	}})
}

// TestCreateLaterPluginsSee checks which changes reach req.Container, as
// later plugins see them, and that the original is kept apart.
func TestCreateLaterPluginsSee(t *testing.T) {
	req := createReq()
	c := NewCreate(req)
	rsp := &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{
		Annotations: map[string]string{"x": "1", "-orig": ""},
		Mounts:      []*api.Mount{{Destination: "/m"}},
		Env:         []*api.KeyValue{{Key: "X", Value: "1"}},
		Args:        []string{"run"},
		Hooks:       &api.Hooks{Prestart: []*api.Hook{{Path: "/hook"}}},
		Rlimits:     []*api.POSIXRlimit{{Type: "RLIMIT_CORE"}},
		CDIDevices:  []*api.CDIDevice{{Name: "v.com/d=0"}},
		Linux: &api.LinuxContainerAdjustment{
			Devices:      []*api.LinuxDevice{{Path: "/dev/x"}},
			Resources:    cpuShares(3),
			CgroupsPath:  "/cg",
			OomScoreAdj:  &api.OptionalInt{Value: 5},
			IoPriority:   &api.LinuxIOPriority{Priority: 4},
			Namespaces:   []*api.LinuxNamespace{{Type: "ipc"}},
			Sysctl:       map[string]string{"s": "1"},
			NetDevices:   map[string]*api.LinuxNetDevice{"eth1": {Name: "e"}},
			Scheduler:    &api.LinuxScheduler{Nice: 2},
			Rdt:          &api.LinuxRdt{ClosId: &api.OptionalString{Value: "c"}},
			MemoryPolicy: &api.LinuxMemoryPolicy{Nodes: "0"},
		},
	}}
	checkErr(t, c.Apply(pa, rsp), nil, "")

	want := testContainer()
	want.Annotations["x"] = "1" // pure removal of "orig" is not shown
	want.Mounts = append(want.Mounts, &api.Mount{Destination: "/m"})
	want.Env = append(want.Env, "X=1")
	want.Args = []string{"run"}
	want.Hooks = &api.Hooks{Prestart: []*api.Hook{{Path: "/hook"}}}
	want.Rlimits = append(want.Rlimits, &api.POSIXRlimit{Type: "RLIMIT_CORE"})
	l := want.Linux
	l.Devices = append(l.Devices, &api.LinuxDevice{Path: "/dev/x"})
	l.Resources.Cpu = &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 3}}
	l.CgroupsPath = "/cg"
	l.OomScoreAdj = &api.OptionalInt{Value: 5}
	l.IoPriority = &api.LinuxIOPriority{Priority: 4}
	l.Namespaces = append(l.Namespaces, &api.LinuxNamespace{Type: "ipc"})
	l.Sysctl["s"] = "1"
	l.NetDevices = map[string]*api.LinuxNetDevice{"eth1": {Name: "e"}}
	l.Scheduler = &api.LinuxScheduler{Nice: 2}
	// Not shown: CDI devices, RDT, memory policy.
	mustEqual(t, "container seen by later plugins", req.Container, want)
	mustEqual(t, "original", c.Original(), testContainer())

	// The merged adjustment is what was asked, plus the forwarded removal.
	mustEqual(t, "merged adjustment", c.Response().Adjust, rsp.Adjust)
}

// TestCreateStopsAtAFailedReply: after a reply fails to merge, Create takes
// no more replies and keeps answering with the first error.
func TestCreateStopsAtAFailedReply(t *testing.T) {
	req := createReq()
	c := NewCreate(req)
	checkErr(t, c.Apply(pa, &api.CreateContainerResponse{
		Adjust: &api.ContainerAdjustment{Env: []*api.KeyValue{{Key: "X", Value: "1"}}},
		Update: []*api.ContainerUpdate{upd("c1", false, memLimit(1))},
	}), nil, "")

	err := c.Apply(pb, &api.CreateContainerResponse{
		Adjust: &api.ContainerAdjustment{
			Annotations: map[string]string{"y": "2"},
			Mounts:      []*api.Mount{{Destination: "/n"}},
			Env:         []*api.KeyValue{{Key: "-ORIG"}, {Key: "X", Value: "2"}},
		},
		Update: []*api.ContainerUpdate{upd("c2", false, memLimit(1))},
	})
	checkErr(t, err, ErrConflict, `environment variable "X"`)
	fine := adj(&api.ContainerAdjustment{Annotations: map[string]string{"z": "1"}})
	checkErr(t, c.Apply(pc, fine), ErrAbandoned, `environment variable "X"`)
	if !errors.Is(c.Err(), ErrConflict) {
		t.Errorf("Err() = %v, want the conflict", c.Err())
	}
	if _, ok := req.Container.Annotations["z"]; ok {
		t.Error("a reply after the failed one was applied")
	}
}

// TestCreateProcessingOrder: within one reply, annotations are merged before
// rlimits, so the annotation conflict is reported.
func TestCreateProcessingOrder(t *testing.T) {
	c := NewCreate(createReq())
	both := func(v string) *api.CreateContainerResponse {
		return adj(&api.ContainerAdjustment{
			Annotations: map[string]string{"x": v},
			Rlimits:     []*api.POSIXRlimit{{Type: "RLIMIT_CORE"}},
		})
	}
	checkErr(t, c.Apply(pa, both("1")), nil, "")
	checkErr(t, c.Apply(pb, both("2")), ErrConflict, `annotation "x"`)
}

func TestCreateEdgeInputs(t *testing.T) {
	t.Run("nil request", func(t *testing.T) {
		c := NewCreate(nil)
		checkErr(t, c.Apply(pa, annotations("x", "1")), nil, "")
		if c.Response().Adjust.Annotations["x"] != "1" {
			t.Errorf("response = %v", c.Response())
		}
	})
	t.Run("nil reply and nil adjust", func(t *testing.T) {
		req := createReq()
		c := NewCreate(req)
		checkErr(t, c.Apply(pa, nil), nil, "")
		checkErr(t, c.Apply(pa, &api.CreateContainerResponse{}), nil, "")
		mustEqual(t, "response", c.Response(), &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{}})
		mustEqual(t, "container", req.Container, testContainer())
		if n := len(c.Owners().Owners); n != 0 {
			t.Errorf("owners = %v", c.Owners())
		}
	})
	t.Run("bad plugin names", func(t *testing.T) {
		c := NewCreate(createReq())
		for _, p := range []string{"", "-10-a", "10-a,20-b"} {
			checkErr(t, c.Apply(p, annotations("x", "1")), api.ErrInvalidName, "")
		}
	})
}
