// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"

	refapi "github.com/containerd/nri/pkg/api"
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// fromOCI compares the conversions from spec types.
func fromOCI(r *report) {
	each(r, "FromOCILinuxResources", resourcesInputs, func(in *rspec.LinuxResources) error {
		return sameMessage(api.FromOCILinuxResources(in, nil), refapi.FromOCILinuxResources(in, nil))
	})
	each(r, "FromOCIMounts", mountsInputs, func(in []rspec.Mount) error {
		return sameMessages(api.FromOCIMounts(in), refapi.FromOCIMounts(in))
	})
	each(r, "FromOCIHooks", hooksInputs, func(in *rspec.Hooks) error {
		return sameMessage(api.FromOCIHooks(in), refapi.FromOCIHooks(in))
	})
	each(r, "FromOCIHookSlice", hooksInputs, func(in *rspec.Hooks) error {
		if in == nil {
			in = &rspec.Hooks{}
		}
		return sameMessages(api.FromOCIHookSlice(in.CreateRuntime), refapi.FromOCIHookSlice(in.CreateRuntime))
	})
	each(r, "FromOCILinuxNamespaces", namespacesInputs, func(in []rspec.LinuxNamespace) error {
		return sameMessages(api.FromOCILinuxNamespaces(in), refapi.FromOCILinuxNamespaces(in))
	})
	each(r, "FromOCILinuxDevices", devicesInputs, func(in []rspec.LinuxDevice) error {
		return sameMessages(api.FromOCILinuxDevices(in), refapi.FromOCILinuxDevices(in))
	})
	each(r, "FromOCILinuxNetDevices", netDevicesInputs, func(in map[string]rspec.LinuxNetDevice) error {
		return sameMessageMaps(api.FromOCILinuxNetDevices(in), refapi.FromOCILinuxNetDevices(in))
	})
	each(r, "FromOCILinuxNetDevice", netDevicesInputs, func(in map[string]rspec.LinuxNetDevice) error {
		var errs []error
		for _, d := range in {
			errs = append(errs, sameMessage(api.FromOCILinuxNetDevice(d), refapi.FromOCILinuxNetDevice(d)))
		}
		return errors.Join(errs...)
	})
	each(r, "FromOCILinuxSeccomp", seccompInputs, func(in *rspec.LinuxSeccomp) error {
		return sameMessage(api.FromOCILinuxSeccomp(in), refapi.FromOCILinuxSeccomp(in))
	})
	each(r, "FromOCILinuxSyscalls", seccompInputs, func(in *rspec.LinuxSeccomp) error {
		return sameMessages(api.FromOCILinuxSyscalls(in.Syscalls), refapi.FromOCILinuxSyscalls(in.Syscalls))
	})
	each(r, "FromOCILinuxIOPriority", ioPriorityInputs, func(in *rspec.LinuxIOPriority) error {
		return sameMessage(api.FromOCILinuxIOPriority(in), refapi.FromOCILinuxIOPriority(in))
	})
	each(r, "FromOCILinuxScheduler", schedulerInputs, func(in *rspec.Scheduler) error {
		return sameMessage(api.FromOCILinuxScheduler(in), refapi.FromOCILinuxScheduler(in))
	})
	each(r, "FromOCILinuxMemoryPolicy", memoryPolicyInputs, func(in *rspec.LinuxMemoryPolicy) error {
		return sameMessage(api.FromOCILinuxMemoryPolicy(in), refapi.FromOCILinuxMemoryPolicy(in))
	})
	each(r, "FromOCIEnv", envInputs, func(in []string) error {
		return sameMessages(api.FromOCIEnv(in), refapi.FromOCIEnv(in))
	})
	each(r, "DupStringSlice", envInputs, func(in []string) error {
		return sameValue(api.DupStringSlice(in), refapi.DupStringSlice(in))
	})
	each(r, "DupStringMap", map[string]map[string]string{"nil": nil, "empty": {}, "full": {"a": "1", "b": ""}},
		func(in map[string]string) error {
			return sameValue(api.DupStringMap(in), refapi.DupStringMap(in))
		})
}
