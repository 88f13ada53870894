// SPDX-License-Identifier: Apache-2.0

// Shaping requests as the reference does before plugins see them.

package relay

import "github.com/nrikit/nrikit/api"

// Runtime code and plugins written against the reference may dereference
// sections of a CreateContainer request's container or of the merged
// adjustment unchecked, because the reference always fills them in, empty
// where nothing is set. nrikit fills in the same ones. On the wire they are
// a few bytes, and applying them changes nothing.

// emptySections are the messages that may be missing, allocated together.
type emptySections struct {
	hooks     api.Hooks
	linux     api.LinuxContainer
	linuxAdj  api.LinuxContainerAdjustment
	resources api.LinuxResources
	memory    api.LinuxMemory
	cpu       api.LinuxCPU
}

// shapeContainerLikeReference fills in the container's hooks, linux, and its
// resources with memory and cpu, in the caller's request, as the reference
// does before plugins see it.
func shapeContainerLikeReference(ctr *api.Container) {
	if ctr == nil {
		return
	}
	r := ctr.GetLinux().GetResources()
	if ctr.Hooks != nil && r != nil && r.Memory != nil && r.Cpu != nil {
		return
	}
	e := &emptySections{}
	if ctr.Hooks == nil {
		ctr.Hooks = &e.hooks
	}
	if ctr.Linux == nil {
		ctr.Linux = &e.linux
	}
	if ctr.Linux.Resources == nil {
		ctr.Linux.Resources = &e.resources
	}
	shapeResources(ctr.Linux.Resources, e)
}

// shapeLikeReference fills in a merged adjustment's hooks, linux, its
// resources with memory and cpu, and its maps.
func shapeLikeReference(adj *api.ContainerAdjustment) {
	e := &emptySections{}
	if adj.Hooks == nil {
		adj.Hooks = &e.hooks
	}
	if adj.Linux == nil {
		adj.Linux = &e.linuxAdj
	}
	l := adj.Linux
	if l.Resources == nil {
		l.Resources = &e.resources
	}
	shapeResources(l.Resources, e)
	if adj.Annotations == nil {
		adj.Annotations = map[string]string{}
	}
	if l.Resources.Unified == nil {
		l.Resources.Unified = map[string]string{}
	}
	if l.NetDevices == nil {
		l.NetDevices = map[string]*api.LinuxNetDevice{}
	}
	if l.Sysctl == nil {
		l.Sysctl = map[string]string{}
	}
}

func shapeResources(r *api.LinuxResources, e *emptySections) {
	if r.Memory == nil {
		r.Memory = &e.memory
	}
	if r.Cpu == nil {
		r.Cpu = &e.cpu
	}
}
