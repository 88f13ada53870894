// SPDX-License-Identifier: Apache-2.0

package api

import (
	"os"
	"reflect"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/proto"
)

// TestResourcesToOCIShape: CPU and Memory are never nil, whatever the
// resources set (a runtime dereferences both); unset values are nil
// pointers; the pids limit follows the reference's rule.
func TestResourcesToOCIShape(t *testing.T) {
	if (*LinuxResources)(nil).ToOCI() != nil {
		t.Error("nil resources gave non-nil")
	}
	for name, r := range map[string]*LinuxResources{
		"empty":       {},
		"cpuset only": {Cpu: &LinuxCPU{Cpus: "0-1"}},
		"memory only": {Memory: &LinuxMemory{Limit: Int64(int64(1))}},
	} {
		o := r.ToOCI()
		if o.CPU == nil || o.Memory == nil {
			t.Errorf("%s: CPU %v, Memory %v: both must be non-nil", name, o.CPU, o.Memory)
			continue
		}
		if o.CPU.Shares != nil || o.Memory.Swap != nil || o.Pids != nil || o.Unified != nil {
			t.Errorf("%s: unset values came out set: %+v %+v", name, o.CPU, o.Memory)
		}
	}
	o := (&LinuxResources{Cpu: &LinuxCPU{Cpus: "0-1"}}).ToOCI()
	if o.CPU.Cpus != "0-1" {
		t.Errorf("cpuset = %q", o.CPU.Cpus)
	}
	for limit, want := range map[int64]*int64{-2: nil, -1: nil, 0: ptrTo(int64(0)), 5: ptrTo(int64(5))} {
		got := (&LinuxResources{Pids: &LinuxPids{Limit: limit}}).ToOCI().Pids
		if got == nil || !reflect.DeepEqual(got.Limit, want) {
			t.Errorf("pids limit %d gave %+v, want limit %v", limit, got, want)
		}
	}
}

func TestResourcesRoundTrip(t *testing.T) {
	full := &rspec.LinuxResources{
		Memory:         &rspec.LinuxMemory{Limit: ptrTo(int64(1)), Swappiness: ptrTo(uint64(2)), DisableOOMKiller: ptrTo(false)},
		CPU:            &rspec.LinuxCPU{Shares: ptrTo(uint64(3)), Quota: ptrTo(int64(-1)), Cpus: "0", Mems: "1"},
		Pids:           &rspec.LinuxPids{Limit: ptrTo(int64(4))},
		HugepageLimits: []rspec.LinuxHugepageLimit{{Pagesize: "2MB", Limit: 5}},
		Devices:        []rspec.LinuxDeviceCgroup{{Allow: true, Type: "c", Major: ptrTo(int64(1)), Access: "r"}},
		Unified:        map[string]string{"a": "b"},
	}
	if got := FromOCILinuxResources(full, nil).ToOCI(); !reflect.DeepEqual(got, full) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, full)
	}
	if FromOCILinuxResources(nil, nil) != nil {
		t.Error("nil gave non-nil")
	}
	r := FromOCILinuxResources(&rspec.LinuxResources{Pids: &rspec.LinuxPids{}, Unified: map[string]string{}}, nil)
	if r.Pids == nil || r.Pids.Limit != 0 || r.Unified != nil || r.Memory != nil || r.Cpu != nil {
		t.Errorf("partial: %v", r)
	}
	c := r.Copy()
	c.Pids.Limit = 9
	if r.Pids.Limit != 0 {
		t.Error("Copy shares memory")
	}
	rdt := &LinuxRdt{ClosId: String("c"), Remove: true}
	if !proto.Equal(rdt.Copy(), rdt) || (*LinuxRdt)(nil).Copy() != nil || (*LinuxResources)(nil).Copy() != nil {
		t.Error("Copy of RDT or nil")
	}
}

func TestMountsAndHooks(t *testing.T) {
	if FromOCIMounts(nil) != nil || FromOCIMounts([]rspec.Mount{}) != nil || FromOCIHooks(nil) != nil {
		t.Error("no mounts or hooks gave non-nil")
	}
	m := FromOCIMounts([]rspec.Mount{{Destination: "/d", Type: "bind", Source: "/s", Options: []string{"rshared", "ro", "rslave"}}})[0]
	q := "before"
	o := m.ToOCI(&q)
	if q != "rslave" || !reflect.DeepEqual(o.Options, []string{"rshared", "ro", "rslave"}) || o.Destination != "/d" {
		t.Errorf("ToOCI gave %+v, propagation %q", o, q)
	}
	q = "before"
	if (&Mount{Options: []string{"ro"}}).ToOCI(&q); q != "before" {
		t.Errorf("propagation changed without a propagation option: %q", q)
	}
	if (*Mount)(nil).ToOCI(nil).Destination != "" {
		t.Error("nil mount")
	}

	h := FromOCIHooks(&rspec.Hooks{Poststop: []rspec.Hook{{Path: "/p", Args: []string{"p"}, Timeout: ptrTo(3)}}})
	if h.Prestart != nil || len(h.Poststop) != 1 || h.Poststop[0].Timeout.GetValue() != 3 {
		t.Errorf("FromOCIHooks = %v", h)
	}
	if oh := h.Poststop[0].ToOCI(); oh.Path != "/p" || *oh.Timeout != 3 || oh.Env != nil {
		t.Errorf("Hook.ToOCI = %+v", oh)
	}
	if (&Hooks{}).Hooks() != nil || h.Hooks() != h {
		t.Error("Hooks() does not drop exactly the empty set")
	}
	both := (&Hooks{Poststop: []*Hook{{Path: "/a"}}}).Append(h)
	if len(both.Poststop) != 2 || both.Poststop[1].Path != "/p" {
		t.Errorf("Append = %v", both)
	}
	if (*Hooks)(nil).Append(h) != h || h.Append(nil) != h {
		t.Error("Append with nil")
	}
}

func TestLinuxConversions(t *testing.T) {
	if FromOCILinuxNamespaces(nil) != nil || FromOCILinuxDevices(nil) != nil || FromOCILinuxNetDevices(map[string]rspec.LinuxNetDevice{}) != nil {
		t.Error("empty input gave non-nil")
	}
	ns := FromOCILinuxNamespaces([]rspec.LinuxNamespace{{Type: rspec.NetworkNamespace, Path: "/n"}})
	if ns[0].Type != "network" || ns[0].Path != "/n" {
		t.Errorf("namespaces %v", ns)
	}
	dev := rspec.LinuxDevice{Path: "/dev/x", Type: "c", Major: 1, Minor: 2, FileMode: ptrTo(os.FileMode(0o666)), GID: ptrTo(uint32(5))}
	d := FromOCILinuxDevices([]rspec.LinuxDevice{dev})[0]
	if d.Uid != nil || d.Gid.GetValue() != 5 || d.FileMode.GetValue() != 0o666 {
		t.Errorf("device %v", d)
	}
	if got := d.ToOCI(); !reflect.DeepEqual(got, dev) {
		t.Errorf("device round trip %+v", got)
	}
	if !reflect.DeepEqual((*LinuxDevice)(nil).ToOCI(), rspec.LinuxDevice{}) {
		t.Error("nil device")
	}
	nd := map[string]rspec.LinuxNetDevice{"eth1": {Name: "n1"}}
	if got := ToOCILinuxNetDevices(FromOCILinuxNetDevices(nd)); !reflect.DeepEqual(got, nd) {
		t.Errorf("net devices round trip %v", got)
	}
	if ToOCILinuxNetDevices(nil) != nil || ToOCILinuxNetDevices(map[string]*LinuxNetDevice{}) == nil {
		t.Error("ToOCILinuxNetDevices: nil must stay nil, empty stay empty")
	}
}

func TestSeccompConversions(t *testing.T) {
	if FromOCILinuxSeccomp(nil) != nil {
		t.Error("nil seccomp gave non-nil (the reference crashes; nrikit must not)")
	}
	in := &rspec.LinuxSeccomp{
		DefaultAction: rspec.ActErrno, DefaultErrnoRet: ptrTo(uint(1)), Architectures: []rspec.Arch{rspec.ArchX86_64},
		Syscalls: []rspec.LinuxSyscall{{Names: []string{"kill"}, Action: rspec.ActErrno, ErrnoRet: ptrTo(uint(13)),
			Args: []rspec.LinuxSeccompArg{{Index: 1, Value: 9, Op: rspec.OpEqualTo}}}},
	}
	s := FromOCILinuxSeccomp(in)
	if s.DefaultErrno.GetValue() != 1 || s.Architectures[0] != "SCMP_ARCH_X86_64" || s.Flags == nil {
		t.Errorf("seccomp %v", s)
	}
	in.Syscalls[0].Names[0] = "changed"
	if s.Syscalls[0].Names[0] != "kill" {
		t.Error("syscall names share memory with the spec")
	}
	in.Syscalls[0].Names[0] = "kill"
	if got := ToOCILinuxSyscalls(s.Syscalls); !reflect.DeepEqual(got, in.Syscalls) {
		t.Errorf("syscalls round trip %+v", got)
	}
	if got := ToOCILinuxSyscalls(nil); got == nil || len(got) != 0 {
		t.Errorf("no syscalls gave %#v, want an empty list", got)
	}
	if got := ToOCILinuxSeccompArgs(nil); got == nil {
		t.Error("no args gave nil, want an empty list")
	}
}

func TestProcessConversions(t *testing.T) {
	if FromOCILinuxIOPriority(nil) != nil || (*LinuxIOPriority)(nil).ToOCI() != nil ||
		FromOCILinuxScheduler(nil) != nil || (*LinuxScheduler)(nil).ToOCI() != nil ||
		FromOCILinuxMemoryPolicy(nil) != nil || (*LinuxMemoryPolicy)(nil).ToOCI() != nil {
		t.Error("nil gave non-nil")
	}
	io := &rspec.LinuxIOPriority{Class: rspec.IOPRIO_CLASS_BE, Priority: 3}
	if got := FromOCILinuxIOPriority(io).ToOCI(); !reflect.DeepEqual(got, io) {
		t.Errorf("I/O priority round trip %+v", got)
	}
	if c := FromOCILinuxIOPriority(&rspec.LinuxIOPriority{Class: "bogus"}).Class; c != IOPrioClass_IOPRIO_CLASS_NONE {
		t.Errorf("unknown class gave %v", c)
	}
	if IOPrioClass(99).ToOCI() != "" || IOPrioClass_IOPRIO_CLASS_NONE.ToOCI() != "" {
		t.Error("NONE or unknown class has a spec name")
	}
	sch := &rspec.Scheduler{Policy: rspec.SchedFIFO, Priority: 5, Flags: []rspec.LinuxSchedulerFlag{rspec.SchedFlagReclaim}}
	if got := FromOCILinuxScheduler(sch).ToOCI(); !reflect.DeepEqual(got, sch) {
		t.Errorf("scheduler round trip %+v", got)
	}
	s := FromOCILinuxScheduler(&rspec.Scheduler{Policy: "bogus", Flags: []rspec.LinuxSchedulerFlag{"bogus", rspec.SchedFlagKeepPolicy}})
	if s.Policy != LinuxSchedulerPolicy_SCHED_NONE || len(s.Flags) != 1 || s.Flags[0] != LinuxSchedulerFlag_SCHED_FLAG_KEEP_POLICY {
		t.Errorf("unknown policy and flag gave %v", s)
	}
	if s.ToOCI() != nil {
		t.Error("SCHED_NONE converted to a spec scheduler")
	}
	mp := &rspec.LinuxMemoryPolicy{Mode: rspec.MpolBind, Nodes: "0-1", Flags: []rspec.MemoryPolicyFlagType{rspec.MpolFStaticNodes}}
	if got := FromOCILinuxMemoryPolicy(mp).ToOCI(); !reflect.DeepEqual(got, mp) {
		t.Errorf("memory policy round trip %+v", got)
	}
}

func ptrTo[T any](v T) *T { return &v }
