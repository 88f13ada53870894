// SPDX-License-Identifier: Apache-2.0

// What a reply changes: the classes an adjustment, updates and evictions touch.

package scope

import (
	"github.com/nrikit/nrikit/api"
)

// Adjustment is the set of classes a touches: each field that would change
// the container. Empty parts (an empty resources message, hooks without a
// hook) touch nothing.
func Adjustment(a *api.ContainerAdjustment) Set {
	if a == nil {
		return 0
	}
	var s Set
	s.addIf(Annotations, len(a.Annotations) > 0)
	s.addIf(Mounts, len(a.Mounts) > 0)
	s.addIf(Env, len(a.Env) > 0)
	s.addIf(Args, len(a.Args) > 0)
	s.addIf(Hooks, a.Hooks != nil && a.Hooks.SizeVT() > 0)
	s.addIf(Rlimits, len(a.Rlimits) > 0)
	s.addIf(CDIDevices, len(a.CDIDevices) > 0)
	if l := a.Linux; l != nil {
		s.addIf(Devices, len(l.Devices) > 0)
		s.addIf(Resources, l.Resources != nil && l.Resources.SizeVT() > 0)
		s.addIf(CgroupsPath, l.CgroupsPath != "")
		s.addIf(OOMScore, l.OomScoreAdj != nil)
		s.addIf(IOPriority, l.IoPriority != nil)
		s.addIf(Seccomp, l.SeccompPolicy != nil)
		s.addIf(Namespaces, len(l.Namespaces) > 0)
		s.addIf(Sysctl, len(l.Sysctl) > 0)
		s.addIf(NetDevices, len(l.NetDevices) > 0)
		s.addIf(Scheduler, l.Scheduler != nil)
		s.addIf(RDT, l.Rdt != nil)
		s.addIf(MemoryPolicy, l.MemoryPolicy != nil)
	}
	return s
}

// Create is what a CreateContainer reply touches: its adjustment, updates
// of other containers, evictions.
func Create(rsp *api.CreateContainerResponse) Set {
	if rsp == nil {
		return 0
	}
	s := Adjustment(rsp.Adjust)
	s.addIf(Updates, hasEntry(rsp.Update))
	s.addIf(Evictions, hasEntry(rsp.Evict))
	return s
}

// Update is what an UpdateContainer reply touches: the resources of the
// container being updated (target), updates of other containers,
// evictions.
func Update(rsp *api.UpdateContainerResponse, target string) Set {
	if rsp == nil {
		return 0
	}
	var s Set
	for _, u := range rsp.Update {
		switch {
		case u == nil:
		case u.ContainerId == target:
			s.addIf(Resources, u.GetLinux().GetResources().SizeVT() > 0)
		default:
			s |= Of(Updates)
		}
	}
	s.addIf(Evictions, hasEntry(rsp.Evict))
	return s
}

// Stop is what a StopContainer reply touches: updates of other containers.
func Stop(rsp *api.StopContainerResponse) Set {
	var s Set
	s.addIf(Updates, hasEntry(rsp.GetUpdate()))
	return s
}

// ContainerUpdates is what a list of updates of containers touches, as a
// plugin sends them on its own (UpdateContainers) or from Synchronize.
func ContainerUpdates(updates []*api.ContainerUpdate) Set {
	var s Set
	s.addIf(Updates, hasEntry(updates))
	return s
}

func (s *Set) addIf(c Class, touched bool) {
	if touched {
		*s |= 1 << c
	}
}

func hasEntry[T any](list []*T) bool {
	for _, e := range list {
		if e != nil {
			return true
		}
	}
	return false
}
