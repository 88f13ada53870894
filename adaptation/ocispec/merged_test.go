// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"os"
	"slices"
	"strings"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// mergedReplies are two plugins' CreateContainer replies as a resource
// manager (10-a) and a security/debug plugin (20-b) would send them.
func mergedReplies() map[string]*api.CreateContainerResponse {
	return map[string]*api.CreateContainerResponse{
		"10-a": {Adjust: &api.ContainerAdjustment{
			Annotations: map[string]string{"a.example.com/pinned": "true"},
			Mounts:      []*api.Mount{{Destination: "/run/a", Type: "bind", Source: "/var/run/a", Options: []string{"rbind", "ro"}}},
			Env:         []*api.KeyValue{{Key: "CPUS", Value: "0-3"}, {Key: "-TERM"}},
			Rlimits:     []*api.POSIXRlimit{{Type: "RLIMIT_MEMLOCK", Hard: 1 << 30, Soft: 1 << 30}},
			CDIDevices:  []*api.CDIDevice{{Name: "vendor.com/gpu=0"}},
			Linux: &api.LinuxContainerAdjustment{
				Devices: []*api.LinuxDevice{{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229, FileMode: &api.OptionalFileMode{Value: 0o666}}},
				Resources: &api.LinuxResources{
					Cpu:            &api.LinuxCPU{Cpus: "0-3", Mems: "0"},
					Memory:         &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 512 << 20}},
					HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 4 << 20}},
					Unified:        map[string]string{"memory.high": "400M"},
					RdtClass:       &api.OptionalString{Value: "gold"},
				},
				OomScoreAdj: &api.OptionalInt{Value: -500},
				Sysctl:      map[string]string{"net.core.somaxconn": "1024"},
				Rdt:         &api.LinuxRdt{EnableMonitoring: &api.OptionalBool{Value: true}},
			},
		}},
		"20-b": {Adjust: &api.ContainerAdjustment{
			Annotations: map[string]string{"-io.kubernetes.cri.sandbox-id": "", "b.example.com/audited": "yes"},
			Mounts:      []*api.Mount{{Destination: "-/data"}, {Destination: "/data/cache", Type: "tmpfs", Source: "tmpfs"}},
			Env:         []*api.KeyValue{{Key: "DEBUG", Value: "1"}, {Key: "-PATH"}, {Key: "PATH", Value: "/opt/bin"}},
			Args:        []string{"", "/bin/sh", "-c", "exec app"},
			Hooks: &api.Hooks{
				CreateRuntime: []*api.Hook{{Path: "/usr/bin/netsetup", Timeout: &api.OptionalInt{Value: 10}}},
				Poststop:      []*api.Hook{{Path: "/usr/bin/notify", Args: []string{"notify", "stopped"}}},
			},
			Linux: &api.LinuxContainerAdjustment{
				Namespaces:   []*api.LinuxNamespace{{Type: "-ipc"}},
				NetDevices:   map[string]*api.LinuxNetDevice{"eth1": {Name: "net1"}},
				Sysctl:       map[string]string{"-net.ipv4.ip_unprivileged_port_start": ""},
				Scheduler:    &api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_BATCH, Nice: 5},
				IoPriority:   &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_BE, Priority: 4},
				MemoryPolicy: &api.LinuxMemoryPolicy{Mode: api.MpolMode_MPOL_BIND, Nodes: "0"},
				Resources:    &api.LinuxResources{Pids: &api.LinuxPids{Limit: 256}},
			},
		}},
	}
}

// mergedWant is sampleSpec with mergedReplies applied, written out by hand.
func mergedWant() *rspec.Spec {
	s := sampleSpec()
	s.Annotations = map[string]string{
		"io.kubernetes.cri.container-type": "container",
		"a.example.com/pinned":             "true",
		"b.example.com/audited":            "yes",
	}
	// /data is gone; /run/a and /data/cache come after the mounts of lower depth.
	m := s.Mounts
	s.Mounts = []rspec.Mount{
		m[0], m[1], m[4], m[2], m[3], m[6],
		{Destination: "/run/a", Type: "bind", Source: "/var/run/a", Options: []string{"rbind", "ro"}},
		{Destination: "/data/cache", Type: "tmpfs", Source: "tmpfs"},
		m[5],
	}
	p := s.Process
	// PATH is replaced in place: merging folds "-PATH" plus PATH into a set.
	p.Env = []string{"PATH=/opt/bin", "HOSTNAME=ctr0", "CPUS=0-3", "DEBUG=1"}
	p.Args = []string{"/bin/sh", "-c", "exec app"}
	p.Rlimits = append(p.Rlimits, rspec.POSIXRlimit{Type: "RLIMIT_MEMLOCK", Hard: 1 << 30, Soft: 1 << 30})
	p.OOMScoreAdj = ptr(-500)
	p.Scheduler = &rspec.Scheduler{Policy: rspec.SchedBatch, Nice: 5}
	p.IOPriority = &rspec.LinuxIOPriority{Class: rspec.IOPRIO_CLASS_BE, Priority: 4}
	s.Hooks = &rspec.Hooks{
		CreateRuntime: []rspec.Hook{{Path: "/usr/bin/netsetup", Timeout: ptr(10)}},
		Poststop:      []rspec.Hook{{Path: "/usr/bin/notify", Args: []string{"notify", "stopped"}}},
	}
	l := s.Linux
	l.Devices = []rspec.LinuxDevice{{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229, FileMode: ptr(os.FileMode(0o666))}}
	r := l.Resources
	r.Devices = append(r.Devices, rspec.LinuxDeviceCgroup{Allow: true, Type: "c", Major: ptr[int64](10), Minor: ptr[int64](229), Access: "rwm"})
	r.CPU.Cpus, r.CPU.Mems = "0-3", "0"
	r.Memory.Limit = ptr[int64](512 << 20)
	r.Memory.Swap = ptr[int64](512 << 20) // a new limit without a swap of its own: no swap
	r.HugepageLimits = []rspec.LinuxHugepageLimit{{Pagesize: "2MB", Limit: 4 << 20}}
	r.Unified = map[string]string{"memory.high": "400M"}
	r.Pids = &rspec.LinuxPids{Limit: ptr[int64](256)}
	l.IntelRdt = &rspec.LinuxIntelRdt{ClosID: "gold", EnableMonitoring: true}
	l.Namespaces = slices.DeleteFunc(l.Namespaces, func(n rspec.LinuxNamespace) bool { return n.Type == rspec.IPCNamespace })
	l.Sysctl = map[string]string{"net.core.somaxconn": "1024"}
	l.NetDevices = map[string]rspec.LinuxNetDevice{"eth1": {Name: "net1"}}
	l.MemoryPolicy = &rspec.LinuxMemoryPolicy{Mode: rspec.MpolBind, Nodes: "0"}
	return s
}

// TestApplyMerged runs the way a runtime does: the container for the
// request comes from the spec, the plugins' replies are merged, and the
// merged adjustment is applied to the spec.
func TestApplyMerged(t *testing.T) {
	spec := sampleSpec()
	ctr := ContainerFromSpec(spec)
	ctr.Id, ctr.PodSandboxId, ctr.Name = "ctr0", "pod0", "app"
	req := &api.CreateContainerRequest{Pod: &api.PodSandbox{Id: "pod0"}, Container: ctr}
	c := merge.NewCreate(req)
	replies := mergedReplies()
	for _, plugin := range []string{"10-a", "20-b"} {
		if err := c.Apply(plugin, replies[plugin]); err != nil {
			t.Fatalf("merge %s: %v", plugin, err)
		}
	}
	adj := c.Response().Adjust
	if err := Apply(spec, adj); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	sameJSON(t, spec, mergedWant())
	if got := CDIDevices(adj); !slices.Equal(got, []string{"vendor.com/gpu=0"}) {
		t.Errorf("CDI devices = %q", got)
	}

	// What the last plugin saw of the container is what the runtime runs,
	// for the fields a plugin's view carries the same way.
	seen, ran := req.Container, ContainerFromSpec(spec)
	for name, pair := range map[string][2]any{
		"args":       {seen.Args, ran.Args},
		"env":        {slices.Sorted(slices.Values(seen.Env)), slices.Sorted(slices.Values(ran.Env))},
		"rlimits":    {seen.Rlimits, ran.Rlimits},
		"hooks":      {seen.Hooks, ran.Hooks},
		"devices":    {seen.Linux.Devices, ran.Linux.Devices},
		"namespaces": {seen.Linux.Namespaces, ran.Linux.Namespaces},
		"mounts":     {sortedMounts(seen.Mounts), sortedMounts(ran.Mounts)},
	} {
		if !protoListEqual(pair[0], pair[1]) {
			t.Errorf("%s: plugins saw %v, spec has %v", name, pair[0], pair[1])
		}
	}
}

func sortedMounts(ms []*api.Mount) []*api.Mount {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b *api.Mount) int { return strings.Compare(a.Destination, b.Destination) })
	return ms
}

// protoListEqual compares string lists, message lists and messages.
func protoListEqual(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case proto.Message:
		return proto.Equal(a, b.(proto.Message))
	}
	av, bv := messages(a), messages(b)
	return slices.EqualFunc(av, bv, proto.Equal)
}

func messages(list any) []proto.Message {
	var out []proto.Message
	switch l := list.(type) {
	case []*api.POSIXRlimit:
		for _, m := range l {
			out = append(out, m)
		}
	case []*api.LinuxDevice:
		for _, m := range l {
			out = append(out, m)
		}
	case []*api.LinuxNamespace:
		for _, m := range l {
			out = append(out, m)
		}
	case []*api.Mount:
		for _, m := range l {
			out = append(out, m)
		}
	default:
		panic("unexpected list type")
	}
	return out
}
