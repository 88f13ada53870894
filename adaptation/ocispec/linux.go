// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// linuxPlan is a checked linux adjustment. Some of it lands in
// spec.Process (OOM score, I/O priority, scheduler), where the spec keeps
// per-process settings.
type linuxPlan struct {
	devices     listEdit[rspec.LinuxDevice]
	resources   *resourcesPlan
	cgroupsPath string
	oomScoreAdj replace[*int]
	ioPriority  replace[*rspec.LinuxIOPriority]
	seccomp     replace[*rspec.LinuxSeccomp]
	namespaces  listEdit[rspec.LinuxNamespace]
	sysctl      mapEdit[string]
	netDevices  mapEdit[rspec.LinuxNetDevice]
	scheduler   replace[*rspec.Scheduler]
	rdt         *rdtPlan
	memPolicy   replace[*rspec.LinuxMemoryPolicy]
}

func planLinux(l *api.LinuxContainerAdjustment) (*linuxPlan, error) {
	if l == nil {
		return nil, nil
	}
	p := &linuxPlan{cgroupsPath: l.CgroupsPath, rdt: planRdt(l.Rdt)}
	steps := []func() error{
		func() (err error) { p.devices, err = planDevices(l.Devices); return err },
		func() (err error) { p.resources, err = planCreateResources(l.Resources); return err },
		func() (err error) { p.oomScoreAdj, err = planOOMScoreAdj(l.OomScoreAdj); return err },
		func() (err error) { p.ioPriority, err = planIOPriority(l.IoPriority); return err },
		func() (err error) { p.seccomp, err = planSeccomp(l.SeccompPolicy); return err },
		func() (err error) { p.namespaces, err = planNamespaces(l.Namespaces); return err },
		func() (err error) { p.sysctl, err = planMap("sysctl", l.Sysctl, keep); return err },
		func() (err error) { p.netDevices, err = planNetDevices(l.NetDevices); return err },
		func() (err error) { p.scheduler, err = planScheduler(l.Scheduler); return err },
		func() (err error) { p.memPolicy, err = planMemoryPolicy(l.MemoryPolicy); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// applyEdits applies what is not resources or RDT, which come later (see
// Applier.applyPlan).
func (p *linuxPlan) applyEdits(spec *rspec.Spec) {
	if p == nil {
		return
	}
	applyDevices(spec, p.devices)
	l := ensureLinux(spec)
	if p.cgroupsPath != "" {
		l.CgroupsPath = p.cgroupsPath
	}
	p.seccomp.to(&l.Seccomp)
	l.Namespaces = p.namespaces.apply(l.Namespaces, func(n rspec.LinuxNamespace) string { return string(n.Type) })
	p.sysctl.apply(&l.Sysctl)
	p.netDevices.apply(&l.NetDevices)
	p.memPolicy.to(&l.MemoryPolicy)
	setProcess(spec, p.oomScoreAdj, func(pr *rspec.Process) **int { return &pr.OOMScoreAdj })
	setProcess(spec, p.ioPriority, func(pr *rspec.Process) **rspec.LinuxIOPriority { return &pr.IOPriority })
	setProcess(spec, p.scheduler, func(pr *rspec.Process) **rspec.Scheduler { return &pr.Scheduler })
}

// setProcess stores a process setting, creating the process section only for
// a value: clearing a setting of a spec without one changes nothing.
func setProcess[T any](spec *rspec.Spec, r replace[*T], field func(*rspec.Process) **T) {
	if !r.ok || (r.v == nil && spec.Process == nil) {
		return
	}
	*field(ensureProcess(spec)) = r.v
}

// namespaceTypes are the namespace types of the spec.
var namespaceTypes = map[rspec.LinuxNamespaceType]bool{
	rspec.PIDNamespace: true, rspec.NetworkNamespace: true, rspec.MountNamespace: true,
	rspec.IPCNamespace: true, rspec.UTSNamespace: true, rspec.UserNamespace: true,
	rspec.CgroupNamespace: true, rspec.TimeNamespace: true,
}

// planNamespaces converts namespaces; "-T" removes the namespace of type T,
// which then is the runtime's own (the container shares the runtime's).
func planNamespaces(in []*api.LinuxNamespace) (listEdit[rspec.LinuxNamespace], error) {
	e, err := planList("namespace", in, (*api.LinuxNamespace).GetType, toOCINamespace)
	if err != nil {
		return e, err
	}
	for _, t := range e.del {
		if !namespaceTypes[rspec.LinuxNamespaceType(t)] {
			return listEdit[rspec.LinuxNamespace]{}, invalid("unknown namespace type %q", t)
		}
	}
	return e, nil
}

func toOCINamespace(n *api.LinuxNamespace) (rspec.LinuxNamespace, error) {
	t := rspec.LinuxNamespaceType(n.Type)
	if !namespaceTypes[t] {
		return rspec.LinuxNamespace{}, invalid("unknown namespace type")
	}
	return rspec.LinuxNamespace{Type: t, Path: n.Path}, nil
}

// planNetDevices converts net devices keyed by host interface; "-K" moves
// none.
func planNetDevices(in map[string]*api.LinuxNetDevice) (mapEdit[rspec.LinuxNetDevice], error) {
	return planMap("net device", in, toOCINetDevice)
}

// toOCINetDevice rejects a net device to set without a value; removals
// ("-K") never get here, their value is null by design.
func toOCINetDevice(d *api.LinuxNetDevice) (rspec.LinuxNetDevice, error) {
	if d == nil {
		return rspec.LinuxNetDevice{}, invalid("net device has no value")
	}
	return rspec.LinuxNetDevice{Name: d.Name}, nil
}

func planMemoryPolicy(m *api.LinuxMemoryPolicy) (replace[*rspec.LinuxMemoryPolicy], error) {
	if m == nil {
		return replace[*rspec.LinuxMemoryPolicy]{}, nil
	}
	mode, err := mpolMode(m.Mode)
	if err != nil {
		return replace[*rspec.LinuxMemoryPolicy]{}, err
	}
	o := &rspec.LinuxMemoryPolicy{Mode: mode, Nodes: m.Nodes}
	for _, f := range m.Flags {
		flag, err := mpolFlag(f)
		if err != nil {
			return replace[*rspec.LinuxMemoryPolicy]{}, err
		}
		o.Flags = append(o.Flags, flag)
	}
	return replaceWith(o), nil
}
