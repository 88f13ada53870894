// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// TestCreateSimpleFields: every simple field conflicts when two plugins set
// it, and is owned by the setter otherwise.
func TestCreateSimpleFields(t *testing.T) {
	cases := []struct {
		field api.Field
		rsp   func(v int) *api.CreateContainerResponse
	}{
		{api.Field_MemLimit, func(v int) *api.CreateContainerResponse { return resAdj(memLimit(int64(v))) }},
		{api.Field_MemReservation, func(v int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Reservation: &api.OptionalInt64{Value: int64(v)}}})
		}},
		{api.Field_MemSwappiness, func(v int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Swappiness: &api.OptionalUInt64{Value: uint64(v)}}})
		}},
		{api.Field_MemDisableOomKiller, func(int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{DisableOomKiller: &api.OptionalBool{Value: true}}})
		}},
		{api.Field_CPUShares, func(v int) *api.CreateContainerResponse { return resAdj(cpuShares(uint64(v) * 1024)) }},
		{api.Field_CPUQuota, func(v int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Cpu: &api.LinuxCPU{Quota: &api.OptionalInt64{Value: int64(v) * 1000}}})
		}},
		{api.Field_CPUSetCPUs, func(int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0-1"}})
		}},
		{api.Field_CPUSetMems, func(int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Cpu: &api.LinuxCPU{Mems: "0"}})
		}},
		{api.Field_BlockioClass, func(int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{BlockioClass: &api.OptionalString{Value: "slow"}})
		}},
		{api.Field_RdtClass, func(int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{RdtClass: &api.OptionalString{Value: "gold"}})
		}},
		{api.Field_PidsLimit, func(v int) *api.CreateContainerResponse {
			return resAdj(&api.LinuxResources{Pids: &api.LinuxPids{Limit: int64(v)}})
		}},
		{api.Field_CgroupsPath, func(int) *api.CreateContainerResponse {
			return linuxAdj(&api.LinuxContainerAdjustment{CgroupsPath: "/x"})
		}},
		{api.Field_OomScoreAdj, func(v int) *api.CreateContainerResponse {
			return linuxAdj(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: int64(v)}})
		}},
		{api.Field_IoPriority, func(v int) *api.CreateContainerResponse {
			return linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Priority: int32(v)}})
		}},
		{api.Field_SeccompPolicy, func(int) *api.CreateContainerResponse {
			return linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ERRNO"}})
		}},
		{api.Field_LinuxSched, func(v int) *api.CreateContainerResponse {
			return linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Nice: int32(v)}})
		}},
		{api.Field_MemoryPolicy, func(int) *api.CreateContainerResponse {
			return linuxAdj(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Mode: api.MpolMode_MPOL_BIND, Nodes: "0"}})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.field.String(), func(t *testing.T) {
			c := NewCreate(createReq())
			checkErr(t, c.Apply(pa, tc.rsp(1)), nil, "")
			if o := owner(c.Owners(), ctrID, tc.field, ""); o != pa {
				t.Errorf("owner = %q", o)
			}
			err := c.Apply(pb, tc.rsp(2))
			checkErr(t, err, ErrConflict, `plugins "10-a" and "20-b" both tried to set `+fieldName(tc.field))
		})
	}
}

func TestCreateResources(t *testing.T) {
	hp := func(size string, v uint64) *api.CreateContainerResponse {
		return resAdj(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: size, Limit: v}}})
	}
	unified := func(k, v string) *api.CreateContainerResponse {
		return resAdj(&api.LinuxResources{Unified: map[string]string{k: v}})
	}
	runCreateCases(t, []createCase{{
		name: "different memory and CPU sub-fields merge",
		replies: []reply{
			{pa, resAdj(memLimit(200))},
			{pb, resAdj(&api.LinuxResources{
				Memory: &api.LinuxMemory{Reservation: &api.OptionalInt64{Value: 50}},
				Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}},
			})},
		},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			r := c.Response().Adjust.Linux.Resources
			if r.Memory.Limit.GetValue() != 200 || r.Memory.Reservation.GetValue() != 50 || r.Cpu.Shares.GetValue() != 512 {
				t.Errorf("merged = %v", r)
			}
			// The original limit (100) was overridden without conflict.
			if got := ctr.Linux.Resources.Memory.Limit.GetValue(); got != 200 {
				t.Errorf("container limit = %d", got)
			}
		},
	}, {
		name:    "hugepage limits per page size",
		replies: []reply{{pa, hp("2MB", 5)}, {pb, hp("1GB", 1)}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.Linux.Resources.HugepageLimits; len(got) != 2 {
				t.Errorf("merged = %v", got)
			}
			want := []*api.HugepageLimit{{PageSize: "2MB", Limit: 5}, {PageSize: "1GB", Limit: 1}}
			if got := ctr.Linux.Resources.HugepageLimits; !slices.EqualFunc(got, want, func(x, y *api.HugepageLimit) bool { return proto.Equal(x, y) }) {
				t.Errorf("container = %v", got)
			}
		},
	}, {
		name:    "hugepage limit conflict",
		replies: []reply{{pa, hp("2MB", 5)}, {pb, hp("2MB", 6)}},
		err:     ErrConflict,
		text:    `hugepage limit "2MB"`,
	}, {
		name:    "unified per key",
		replies: []reply{{pa, unified("memory.high", "1")}, {pb, unified("memory.max", "2")}},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			if got := c.Response().Adjust.Linux.Resources.Unified; len(got) != 2 {
				t.Errorf("merged = %v", got)
			}
		},
	}, {
		name:    "unified conflict",
		replies: []reply{{pa, unified("memory.high", "1")}, {pb, unified("memory.high", "2")}},
		err:     ErrConflict,
	}, {
		name: "cgroup device rules are appended, untracked",
		replies: []reply{
			{pa, resAdj(&api.LinuxResources{Devices: []*api.LinuxDeviceCgroup{{Allow: true, Access: "r"}}})},
			{pb, resAdj(&api.LinuxResources{Devices: []*api.LinuxDeviceCgroup{{Allow: true, Access: "r"}}})},
		},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.Linux.Resources.Devices; len(got) != 2 {
				t.Errorf("merged = %v", got)
			}
			if got := ctr.Linux.Resources.Devices; len(got) != 2 {
				t.Errorf("container = %v", got)
			}
		},
	}, {
		name:    "nil hugepage entry",
		replies: []reply{{pa, resAdj(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{nil}})}},
		err:     ErrInvalidAdjustment,
	}, {
		name:    "empty unified key",
		replies: []reply{{pa, unified("", "1")}},
		err:     ErrInvalidAdjustment,
	}})
}

func TestCreateDevices(t *testing.T) {
	devs := func(paths ...string) *api.CreateContainerResponse {
		l := &api.LinuxContainerAdjustment{}
		for _, p := range paths {
			l.Devices = append(l.Devices, &api.LinuxDevice{Path: p, Type: "c"})
		}
		return linuxAdj(l)
	}
	runCreateCases(t, []createCase{{
		name:    "same path conflicts",
		replies: []reply{{pa, devs("/dev/x")}, {pb, devs("/dev/x")}},
		err:     ErrConflict,
		text:    `device "/dev/x"`,
	}, {
		name:    "removal drops and replaces",
		replies: []reply{{pa, devs("/dev/x", "/dev/y")}, {pb, devs("-/dev/x", "-/dev/y", "/dev/y", "-/dev/orig")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			var got []string
			for _, d := range c.Response().Adjust.Linux.Devices {
				got = append(got, d.Path)
			}
			if want := []string{"/dev/y", "-/dev/x", "-/dev/orig"}; !slices.Equal(got, want) {
				t.Errorf("merged = %v, want %v", got, want)
			}
			var in []string
			for _, d := range ctr.Linux.Devices {
				in = append(in, d.Path)
			}
			if want := []string{"/dev/y"}; !slices.Equal(in, want) {
				t.Errorf("container = %v, want %v", in, want)
			}
			o := c.Owners()
			if owner(o, ctrID, api.Field_Devices, "/dev/x") != "-"+pb || owner(o, ctrID, api.Field_Devices, "/dev/y") != pb {
				t.Errorf("owners = %v", o)
			}
		},
	}})
}

func TestCreateNamespaces(t *testing.T) {
	ns := func(types ...string) *api.CreateContainerResponse {
		l := &api.LinuxContainerAdjustment{}
		for _, typ := range types {
			l.Namespaces = append(l.Namespaces, &api.LinuxNamespace{Type: typ, Path: "/ns/" + typ})
		}
		return linuxAdj(l)
	}
	nsTypes := func(list []*api.LinuxNamespace) []string {
		var out []string
		for _, n := range list {
			out = append(out, n.Type)
		}
		return out
	}
	runCreateCases(t, []createCase{{
		name:    "different types merge; removals forwarded as given",
		replies: []reply{{pa, ns("ipc", "-pid")}, {pb, ns("uts")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got, want := nsTypes(c.Response().Adjust.Linux.Namespaces), []string{"ipc", "-pid", "uts"}; !slices.Equal(got, want) {
				t.Errorf("merged = %v, want %v", got, want)
			}
			if got, want := nsTypes(ctr.Linux.Namespaces), []string{"network", "ipc", "uts"}; !slices.Equal(got, want) {
				t.Errorf("container = %v, want %v", got, want)
			}
		},
	}, {
		name:    "removal is claimed",
		replies: []reply{{pa, ns("-network")}, {pb, ns("network")}},
		err:     ErrConflict,
		text:    `plugins "10-a" and "20-b" both tried to set namespace "network"`,
	}, {
		name:    "addition conflicts",
		replies: []reply{{pa, ns("ipc")}, {pb, ns("ipc")}},
		err:     ErrConflict,
	}, {
		name:    "removal and set in one reply replace",
		replies: []reply{{pa, ns("ipc")}, {pb, ns("-ipc", "ipc")}},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			got := c.Response().Adjust.Linux.Namespaces
			if len(got) != 1 || got[0].Type != "ipc" {
				t.Errorf("merged = %v", got)
			}
			if o := owner(c.Owners(), ctrID, api.Field_Namespace, "ipc"); o != pb {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name:    "original namespace is replaced",
		replies: []reply{{pa, ns("network")}},
		check: func(t *testing.T, _ *Create, ctr *api.Container) {
			if got := ctr.Linux.Namespaces[0]; got.Type != "network" || got.Path != "/ns/network" {
				t.Errorf("container = %v", ctr.Linux.Namespaces)
			}
		},
	}, {
		name:    "same type twice in one reply",
		replies: []reply{{pa, ns("-ipc", "ipc", "ipc")}},
		err:     ErrConflict,
		text:    "twice",
	}, {
		name:    "lone marker",
		replies: []reply{{pa, ns("-")}},
		err:     ErrInvalidAdjustment,
	}})
}

func TestCreateSysctlAndNetDevices(t *testing.T) {
	sysctl := func(kv ...string) *api.CreateContainerResponse {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return linuxAdj(&api.LinuxContainerAdjustment{Sysctl: m})
	}
	netdev := func(m map[string]*api.LinuxNetDevice) *api.CreateContainerResponse {
		return linuxAdj(&api.LinuxContainerAdjustment{NetDevices: m})
	}
	runCreateCases(t, []createCase{{
		name:    "sysctl conflict",
		replies: []reply{{pa, sysctl("k", "1")}, {pb, sysctl("k", "2")}},
		err:     ErrConflict,
		text:    `sysctl "k"`,
	}, {
		name:    "sysctl pure removal goes into the merged sysctl map",
		replies: []reply{{pa, sysctl("k", "1")}, {pb, sysctl("-net.orig", "")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			adj := c.Response().Adjust
			if _, ok := adj.Linux.Sysctl["-net.orig"]; !ok || adj.Linux.Sysctl["k"] != "1" {
				t.Errorf("merged sysctl = %v", adj.Linux.Sysctl)
			}
			if len(adj.Annotations) != 0 {
				t.Errorf("merged annotations = %v", adj.Annotations)
			}
			if ctr.Linux.Sysctl["k"] != "1" || ctr.Linux.Sysctl["net.orig"] != "1" {
				t.Errorf("container = %v", ctr.Linux.Sysctl)
			}
		},
	}, {
		name:    "sysctl removal and set replace",
		replies: []reply{{pa, sysctl("k", "1")}, {pb, sysctl("-k", "", "k", "2")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.Linux.Sysctl["k"]; got != "2" || ctr.Linux.Sysctl["k"] != "2" {
				t.Errorf("merged = %q, container = %v", got, ctr.Linux.Sysctl)
			}
		},
	}, {
		name: "net devices: conflict per host interface",
		replies: []reply{
			{pa, netdev(map[string]*api.LinuxNetDevice{"eth1": {Name: "a"}})},
			{pb, netdev(map[string]*api.LinuxNetDevice{"eth1": {Name: "b"}})},
		},
		err:  ErrConflict,
		text: `net device "eth1"`,
	}, {
		name: "net devices: removal carries an empty value",
		replies: []reply{
			{pa, netdev(map[string]*api.LinuxNetDevice{"eth1": {Name: "a"}})},
			{pb, netdev(map[string]*api.LinuxNetDevice{"-eth2": nil, "eth3": {Name: "b"}})},
		},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Linux.NetDevices
			// Null in the reference; a null map value encodes as an empty
			// message, which is also what a clone holds.
			if v, ok := got["-eth2"]; !ok || v.GetName() != "" || got["eth3"].GetName() != "b" {
				t.Errorf("merged = %v", got)
			}
			if len(ctr.Linux.NetDevices) != 2 {
				t.Errorf("container = %v", ctr.Linux.NetDevices)
			}
			if _, err := proto.Marshal(c.Response()); err != nil {
				t.Errorf("marshal: %v", err)
			}
		},
	}, {
		name:    "net device set without a value",
		replies: []reply{{pa, netdev(map[string]*api.LinuxNetDevice{"eth1": nil})}},
		err:     ErrInvalidAdjustment,
	}})
}

func TestCreateRdt(t *testing.T) {
	rdt := func(r *api.LinuxRdt) *api.CreateContainerResponse {
		return linuxAdj(&api.LinuxContainerAdjustment{Rdt: r})
	}
	clos := func(v string) *api.LinuxRdt { return &api.LinuxRdt{ClosId: &api.OptionalString{Value: v}} }
	runCreateCases(t, []createCase{{
		name:    "sub-field conflict",
		replies: []reply{{pa, rdt(clos("c1"))}, {pb, rdt(clos("c2"))}},
		err:     ErrConflict,
		text:    "RDT CLOS ID",
	}, {
		name: "different sub-fields merge",
		replies: []reply{{pa, rdt(clos("c1"))}, {pb, rdt(&api.LinuxRdt{
			EnableMonitoring: &api.OptionalBool{Value: true},
		})}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			r := c.Response().Adjust.Linux.Rdt
			if r.ClosId.GetValue() != "c1" || !r.EnableMonitoring.GetValue() || r.Remove {
				t.Errorf("merged = %v", r)
			}
			if ctr.Linux.GetRdt() != nil {
				t.Errorf("later plugins see rdt: %v", ctr.Linux.Rdt)
			}
		},
	}, {
		name:    "remove clears all three and resets",
		replies: []reply{{pa, rdt(clos("c1"))}, {pb, rdt(&api.LinuxRdt{Remove: true})}},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			mustEqual(t, "merged rdt", c.Response().Adjust.Linux.Rdt, &api.LinuxRdt{Remove: true})
			o := c.Owners()
			for _, f := range []api.Field{api.Field_RdtClosID, api.Field_RdtSchemata, api.Field_RdtEnableMonitoring} {
				if got := owner(o, ctrID, f, ""); got != "-"+pb {
					t.Errorf("%v owner = %q", f, got)
				}
			}
		},
	}, {
		name:    "after remove only the remover may set",
		replies: []reply{{pa, rdt(clos("c1"))}, {pb, rdt(&api.LinuxRdt{Remove: true})}, {pc, rdt(clos("c3"))}},
		err:     ErrConflict,
		text:    `plugins "20-b" and "30-c"`,
	}, {
		name: "remove and set in one reply replace",
		replies: []reply{{pa, rdt(clos("c1"))}, {pb, rdt(&api.LinuxRdt{
			Remove: true, ClosId: &api.OptionalString{Value: "c2"},
		})}},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			mustEqual(t, "merged rdt", c.Response().Adjust.Linux.Rdt, &api.LinuxRdt{ClosId: &api.OptionalString{Value: "c2"}})
		},
	}})
}

func TestCreateRlimitsAndCDI(t *testing.T) {
	rl := func(typ string, v uint64) *api.CreateContainerResponse {
		return adj(&api.ContainerAdjustment{Rlimits: []*api.POSIXRlimit{{Type: typ, Hard: v, Soft: v}}})
	}
	cdi := func(names ...string) *api.CreateContainerResponse {
		a := &api.ContainerAdjustment{}
		for _, n := range names {
			a.CDIDevices = append(a.CDIDevices, &api.CDIDevice{Name: n})
		}
		return adj(a)
	}
	runCreateCases(t, []createCase{{
		name:    "rlimit per type",
		replies: []reply{{pa, rl("RLIMIT_NOFILE", 100)}, {pb, rl("RLIMIT_NPROC", 5)}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.Rlimits; len(got) != 2 {
				t.Errorf("merged = %v", got)
			}
			// The original NOFILE is replaced, NPROC added.
			if len(ctr.Rlimits) != 2 || ctr.Rlimits[0].Hard != 100 {
				t.Errorf("container = %v", ctr.Rlimits)
			}
		},
	}, {
		name:    "rlimit conflict",
		replies: []reply{{pa, rl("RLIMIT_NOFILE", 100)}, {pb, rl("RLIMIT_NOFILE", 5)}},
		err:     ErrConflict,
		text:    `rlimit "RLIMIT_NOFILE"`,
	}, {
		name:    "CDI devices add only, unseen by later plugins",
		replies: []reply{{pa, cdi("vendor.com/gpu=0")}, {pb, cdi("vendor.com/gpu=1")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.CDIDevices; len(got) != 2 {
				t.Errorf("merged = %v", got)
			}
			if len(ctr.CDIDevices) != 0 {
				t.Errorf("container = %v", ctr.CDIDevices)
			}
		},
	}, {
		name:    "CDI device conflict",
		replies: []reply{{pa, cdi("vendor.com/gpu=0")}, {pb, cdi("vendor.com/gpu=0")}},
		err:     ErrConflict,
		text:    `CDI device "vendor.com/gpu=0"`,
	}, {
		name:    "empty CDI name",
		replies: []reply{{pa, cdi("")}},
		err:     ErrInvalidAdjustment,
	}})
}
