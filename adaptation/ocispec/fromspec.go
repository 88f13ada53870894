// SPDX-License-Identifier: Apache-2.0

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
		Hooks:       api.FromOCIHooks(spec.Hooks),
		Mounts:      api.FromOCIMounts(spec.Mounts),
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

// linuxFromOCI gathers the linux part from spec.Linux and the per-process
// settings NRI keeps there; nil if there is nothing.
func linuxFromOCI(spec *rspec.Spec) *api.LinuxContainer {
	l := &api.LinuxContainer{}
	if sl := spec.Linux; sl != nil {
		l.CgroupsPath = sl.CgroupsPath
		l.Resources = FromOCIResources(sl.Resources)
		l.Sysctl = maps.Clone(sl.Sysctl)
		l.SeccompPolicy = api.FromOCILinuxSeccomp(sl.Seccomp)
		l.Rdt = rdtFromOCI(sl.IntelRdt)
		l.Namespaces = api.FromOCILinuxNamespaces(sl.Namespaces)
		l.Devices = api.FromOCILinuxDevices(sl.Devices)
		l.NetDevices = api.FromOCILinuxNetDevices(sl.NetDevices)
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

// ioPriorityFromOCI is api's conversion, except that a class NRI does not
// know (or none) leaves the priority out instead of reading as NONE.
func ioPriorityFromOCI(p *rspec.LinuxIOPriority) *api.LinuxIOPriority {
	if p == nil {
		return nil
	}
	if _, ok := enumValue(ioPrioClasses, p.Class); !ok || p.Class == "" {
		return nil
	}
	return api.FromOCILinuxIOPriority(p)
}

// schedulerFromOCI is api's conversion, except that a policy NRI does not
// know (or none) leaves the scheduler out instead of reading as SCHED_NONE.
func schedulerFromOCI(s *rspec.Scheduler) *api.LinuxScheduler {
	if s == nil {
		return nil
	}
	if _, ok := enumValue(schedPolicies, s.Policy); !ok || s.Policy == "" {
		return nil
	}
	return api.FromOCILinuxScheduler(s)
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
