// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// ToOCIResources converts NRI resources to spec resources in the sparse
// form that ApplyResources overlays onto a spec: like api's
// (*LinuxResources).ToOCI, except that the CPU and memory sections are nil
// where r has none (ToOCI always sets both), and a pids limit is carried as
// it is, -1 included (ToOCI leaves a limit of -1 or below unset). It does not
// check values (ApplyResources does). Block I/O and RDT classes have no spec
// field and are left out.
//
// A runtime that hands the result to code expecting the reference's shape
// (CPU and Memory never nil) must use api's ToOCI instead.
func ToOCIResources(r *api.LinuxResources) *rspec.LinuxResources {
	o := r.ToOCI()
	if o == nil {
		return nil
	}
	if r.Memory == nil {
		o.Memory = nil
	}
	if r.Cpu == nil {
		o.CPU = nil
	}
	if r.Pids != nil {
		o.Pids.Limit = ptr(r.Pids.Limit)
	}
	return o
}

// FromOCIResources converts spec resources to NRI resources: api's
// FromOCILinuxResources, except that a pids section without a limit is left
// out (the reference's gives a limit of 0, which a plugin echoing it back
// would turn into a limit of zero tasks). What NRI has no field for (block
// I/O and network settings, CPU burst and idle, RDMA) is left out.
func FromOCIResources(r *rspec.LinuxResources) *api.LinuxResources {
	o := api.FromOCILinuxResources(r, nil)
	if o != nil && r.Pids != nil && r.Pids.Limit == nil {
		o.Pids = nil
	}
	return o
}
