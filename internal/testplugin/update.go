// SPDX-License-Identifier: Apache-2.0

package testplugin

import "github.com/nrikit/nrikit/api"

// Update is a container update a test plugin asks for: new CPU shares for
// one container, which is enough to tell updates apart in a report.
type Update struct {
	ContainerID   string `json:"container_id"`
	CPUShares     uint64 `json:"cpu_shares,omitempty"`
	IgnoreFailure bool   `json:"ignore_failure,omitempty"`
}

// ContainerUpdate is u on the wire.
func (u Update) ContainerUpdate() *api.ContainerUpdate {
	cu := &api.ContainerUpdate{ContainerId: u.ContainerID, IgnoreFailure: u.IgnoreFailure}
	if u.CPUShares != 0 {
		cu.Linux = &api.LinuxContainerUpdate{Resources: &api.LinuxResources{
			Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: u.CPUShares}},
		}}
	}
	return cu
}

// containerUpdates is updates on the wire, nil for none.
func containerUpdates(updates []Update) []*api.ContainerUpdate {
	var out []*api.ContainerUpdate
	for _, u := range updates {
		out = append(out, u.ContainerUpdate())
	}
	return out
}

// othersUpdates is containerUpdates without those of container id: a
// CreateContainer reply updates other containers, never the one it creates.
func othersUpdates(updates []Update, id string) []*api.ContainerUpdate {
	var out []*api.ContainerUpdate
	for _, u := range updates {
		if u.ContainerID != id {
			out = append(out, u.ContainerUpdate())
		}
	}
	return out
}
