// SPDX-License-Identifier: Apache-2.0

package api_test

import (
	"context"
	"fmt"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// A runtime's glue fills the container it sends to plugins from the OCI
// spec it generated.
func ExampleFromOCILinuxResources() {
	limit, shares := int64(1<<30), uint64(512)
	spec := &rspec.Spec{Linux: &rspec.Linux{Resources: &rspec.LinuxResources{
		Memory: &rspec.LinuxMemory{Limit: &limit},
		CPU:    &rspec.LinuxCPU{Shares: &shares, Cpus: "0-3"},
	}}}
	ctr := &api.Container{
		Mounts: api.FromOCIMounts(spec.Mounts),
		Linux: &api.LinuxContainer{
			Resources:  api.FromOCILinuxResources(spec.Linux.Resources, spec.Annotations),
			Namespaces: api.FromOCILinuxNamespaces(spec.Linux.Namespaces),
		},
	}
	r := ctr.GetLinux().GetResources()
	fmt.Println(r.GetMemory().GetLimit().GetValue(), r.GetCpu().GetShares().GetValue(), r.GetCpu().GetCpus())
	// Output: 1073741824 512 0-3
}

// A plugin's update becomes the OCI resources the runtime's cgroup code
// takes. CPU and Memory are always there, even for a cpuset-only update.
func ExampleLinuxResources_ToOCI() {
	u := &api.ContainerUpdate{}
	u.SetContainerId("ctr1")
	u.SetLinuxCPUSetCPUs("2-3")

	res := u.GetLinux().GetResources().ToOCI()
	fmt.Println(res.CPU.Cpus, res.Memory.Limit == nil)
	// Output: 2-3 true
}

// Optional values: from a value, from a pointer (nil: unset), and back.
func ExampleInt64() {
	var unset *int64
	limit := api.Int64(int64(1 << 20))
	fmt.Println(limit.GetValue(), api.Int64(unset) == nil, *limit.Get())
	// Output: 1048576 true 1048576
}

// An in-process plugin embeds api.PluginBase and implements only the
// events it takes; adaptation.BuiltinPlugin{Handler: p} adds it.
func ExamplePluginBase() {
	p := &memCap{api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}}
	rsp, _ := p.CreateContainer(context.Background(), &api.CreateContainerRequest{})
	fmt.Println(rsp.GetAdjust().GetLinux().GetResources().GetMemory().GetLimit().GetValue())
	cfg, _ := p.Configure(context.Background(), &api.ConfigureRequest{})
	fmt.Println(api.EventMask(cfg.GetEvents()).PrettyString())
	// Output:
	// 268435456
	// CreateContainer
}

type memCap struct{ api.PluginBase }

func (memCap) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	adj := &api.ContainerAdjustment{}
	adj.AddAnnotation("example.com/capped", "true")
	adj.RemoveEnv("DEBUG")
	adj.SetLinuxMemoryLimit(256 << 20)
	return &api.CreateContainerResponse{Adjust: adj}, nil
}

// A validator asks who set a field.
func ExampleOwningPlugins_MemLimitOwner() {
	req := &api.ValidateContainerAdjustmentRequest{
		Container: &api.Container{Id: "ctr1"},
		Owners: &api.OwningPlugins{Owners: map[string]*api.FieldOwners{
			"ctr1": {Simple: map[int32]string{int32(api.Field_MemLimit): "10-memcap"}},
		}},
	}
	owner, ok := req.GetOwners().MemLimitOwner(req.GetContainer().GetId())
	fmt.Println(owner, ok)
	// Output: 10-memcap true
}

func ExampleEventMask_Set() {
	var m api.EventMask
	m.Set(api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER)
	parsed := api.MustParseEventMask("runpodsandbox,createcontainer")
	fmt.Println(m.PrettyString(), m == parsed, m.IsSet(api.Event_STOP_CONTAINER))
	// Output: RunPodSandbox,CreateContainer true false
}

func ExampleIsMarkedForRemoval() {
	adj := &api.ContainerAdjustment{}
	adj.RemoveMount("/var/log")
	name, removed := adj.GetMounts()[0].IsMarkedForRemoval()
	fmt.Println(name, removed, api.MarkForRemoval("HOME"))
	// Output: /var/log true -HOME
}
