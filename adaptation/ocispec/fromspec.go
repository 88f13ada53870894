package ocispec

import (
	"maps"
	"slices"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// ContainerFromSpec fills what a CreateContainerRequest's container can tell
// from its OCI spec: args, env, mounts, hooks, annotations, rlimits, user and
// the linux part (namespaces, devices, resources, OOM score, cgroups path,
// I/O priority, seccomp policy, sysctl, net devices, scheduler, RDT). The
// runtime adds the rest (IDs, name, labels, state, image, CDI devices).
//
// It reads best effort: a spec value NRI has no enum value for (an unknown
// I/O priority class, scheduler policy or flag) is left out rather than
// failing container creation.
func ContainerFromSpec(spec *rspec.Spec) *api.Container {
	if spec == nil {
		return nil
	}
	c := &api.Container{
		Annotations: maps.Clone(spec.Annotations),
		Hooks:       hooksFromOCI(spec.Hooks),
	}
	for _, m := range spec.Mounts {
		c.Mounts = append(c.Mounts, &api.Mount{
			Destination: m.Destination, Type: m.Type, Source: m.Source, Options: slices.Clone(m.Options),
		})
	}
	if p := spec.Process; p != nil {
		c.Args = slices.Clone(p.Args)
		c.Env = slices.Clone(p.Env)
		c.User = &api.User{Uid: p.User.UID, Gid: p.User.GID, AdditionalGids: slices.Clone(p.User.AdditionalGids)}
		for _, r := range p.Rlimits {
			c.Rlimits = append(c.Rlimits, &api.POSIXRlimit{Type: r.Type, Hard: r.Hard, Soft: r.Soft})
		}
	}
	c.Linux = linuxFromOCI(spec)
	return c
}

func hooksFromOCI(h *rspec.Hooks) *api.Hooks {
	if h == nil {
		return nil
	}
	return &api.Hooks{
		//lint:ignore SA1019 deprecated in the spec, still used by runtimes and plugins
		Prestart:        hookListFromOCI(h.Prestart),
		CreateRuntime:   hookListFromOCI(h.CreateRuntime),
		CreateContainer: hookListFromOCI(h.CreateContainer),
		StartContainer:  hookListFromOCI(h.StartContainer),
		Poststart:       hookListFromOCI(h.Poststart),
		Poststop:        hookListFromOCI(h.Poststop),
	}
}

func hookListFromOCI(hooks []rspec.Hook) []*api.Hook {
	var out []*api.Hook
	for _, h := range hooks {
		o := &api.Hook{Path: h.Path, Args: slices.Clone(h.Args), Env: slices.Clone(h.Env)}
		if h.Timeout != nil {
			o.Timeout = &api.OptionalInt{Value: int64(*h.Timeout)}
		}
		out = append(out, o)
	}
	return out
}

// linuxFromOCI gathers the linux part from spec.Linux and the per-process
// settings NRI keeps there; nil if there is nothing.
func linuxFromOCI(spec *rspec.Spec) *api.LinuxContainer {
	l := &api.LinuxContainer{}
	if sl := spec.Linux; sl != nil {
		l.CgroupsPath = sl.CgroupsPath
		l.Resources = FromOCIResources(sl.Resources)
		l.Sysctl = maps.Clone(sl.Sysctl)
		l.SeccompPolicy = seccompFromOCI(sl.Seccomp)
		l.Rdt = rdtFromOCI(sl.IntelRdt)
		for _, n := range sl.Namespaces {
			l.Namespaces = append(l.Namespaces, &api.LinuxNamespace{Type: string(n.Type), Path: n.Path})
		}
		for _, d := range sl.Devices {
			l.Devices = append(l.Devices, deviceFromOCI(d))
		}
		for host, d := range sl.NetDevices {
			if l.NetDevices == nil {
				l.NetDevices = map[string]*api.LinuxNetDevice{}
			}
			l.NetDevices[host] = &api.LinuxNetDevice{Name: d.Name}
		}
	}
	if p := spec.Process; p != nil {
		if p.OOMScoreAdj != nil {
			l.OomScoreAdj = &api.OptionalInt{Value: int64(*p.OOMScoreAdj)}
		}
		l.IoPriority = ioPriorityFromOCI(p.IOPriority)
		l.Scheduler = schedulerFromOCI(p.Scheduler)
	}
	if proto.Equal(l, &api.LinuxContainer{}) {
		return nil
	}
	return l
}

func deviceFromOCI(d rspec.LinuxDevice) *api.LinuxDevice {
	o := &api.LinuxDevice{Path: d.Path, Type: d.Type, Major: d.Major, Minor: d.Minor}
	if d.FileMode != nil {
		o.FileMode = &api.OptionalFileMode{Value: uint32(*d.FileMode)}
	}
	if d.UID != nil {
		o.Uid = &api.OptionalUInt32{Value: *d.UID}
	}
	if d.GID != nil {
		o.Gid = &api.OptionalUInt32{Value: *d.GID}
	}
	return o
}

func ioPriorityFromOCI(p *rspec.LinuxIOPriority) *api.LinuxIOPriority {
	if p == nil {
		return nil
	}
	class, ok := enumValue(ioPrioClasses, p.Class)
	if !ok || p.Class == "" {
		return nil
	}
	return &api.LinuxIOPriority{Class: class, Priority: int32(p.Priority)}
}

func schedulerFromOCI(s *rspec.Scheduler) *api.LinuxScheduler {
	if s == nil {
		return nil
	}
	policy, ok := enumValue(schedPolicies, s.Policy)
	if !ok || s.Policy == "" {
		return nil
	}
	o := &api.LinuxScheduler{
		Policy: policy, Nice: s.Nice, Priority: s.Priority,
		Runtime: s.Runtime, Deadline: s.Deadline, Period: s.Period,
	}
	for _, f := range s.Flags {
		if flag, ok := enumValue(schedFlags, f); ok {
			o.Flags = append(o.Flags, flag)
		}
	}
	return o
}

func seccompFromOCI(s *rspec.LinuxSeccomp) *api.LinuxSeccomp {
	if s == nil {
		return nil
	}
	o := &api.LinuxSeccomp{
		DefaultAction:    string(s.DefaultAction),
		DefaultErrno:     errnoFromOCI(s.DefaultErrnoRet),
		ListenerPath:     s.ListenerPath,
		ListenerMetadata: s.ListenerMetadata,
	}
	for _, a := range s.Architectures {
		o.Architectures = append(o.Architectures, string(a))
	}
	for _, f := range s.Flags {
		o.Flags = append(o.Flags, string(f))
	}
	for _, sc := range s.Syscalls {
		c := &api.LinuxSyscall{Names: slices.Clone(sc.Names), Action: string(sc.Action), ErrnoRet: errnoFromOCI(sc.ErrnoRet)}
		for _, a := range sc.Args {
			c.Args = append(c.Args, &api.LinuxSeccompArg{
				Index: uint32(a.Index), Value: a.Value, ValueTwo: a.ValueTwo, Op: string(a.Op),
			})
		}
		o.Syscalls = append(o.Syscalls, c)
	}
	return o
}

func errnoFromOCI(v *uint) *api.OptionalUInt32 {
	if v == nil {
		return nil
	}
	return &api.OptionalUInt32{Value: uint32(*v)}
}

// rdtFromOCI shows the legacy L3 and MB schema strings as schemata lines,
// which is what they are written as.
func rdtFromOCI(r *rspec.LinuxIntelRdt) *api.LinuxRdt {
	if r == nil {
		return nil
	}
	o := &api.LinuxRdt{}
	if r.ClosID != "" {
		o.ClosId = &api.OptionalString{Value: r.ClosID}
	}
	schemata := slices.Clone(r.Schemata)
	if len(schemata) == 0 {
		for _, s := range []string{r.L3CacheSchema, r.MemBwSchema} {
			if s != "" {
				schemata = append(schemata, s)
			}
		}
	}
	if len(schemata) > 0 {
		o.Schemata = &api.OptionalRepeatedString{Value: schemata}
	}
	if r.EnableMonitoring {
		o.EnableMonitoring = &api.OptionalBool{Value: true}
	}
	return o
}
