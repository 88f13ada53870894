// SPDX-License-Identifier: Apache-2.0

package ocispec_test

import (
	"errors"
	"fmt"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/adaptation/ocispec"
	"github.com/nrikit/nrikit/api"
)

// A runtime plugs its own rules into an Applier: the five hooks of the
// reference's spec generator. A failing hook leaves the spec as it was.
func ExampleApplier() {
	const minMemory = 12 << 20
	applier := ocispec.Applier{
		AnnotationFilter: func(a map[string]string) (map[string]string, error) {
			delete(a, "io.kubernetes.cri-o.Devices") // one the runtime disallows
			return a, nil
		},
		CDIDeviceInjector: func(spec *rspec.Spec, devices []string) error {
			return nil // the runtime's CDI registry injects devices here
		},
		ResourceChecker: func(r *rspec.LinuxResources) error {
			if r.Memory != nil && r.Memory.Limit != nil && *r.Memory.Limit > 0 && *r.Memory.Limit < minMemory {
				return errors.New("memory limit below the runtime's minimum")
			}
			return nil
		},
		BlockIOClass: func(class string) (*rspec.LinuxBlockIO, error) {
			return &rspec.LinuxBlockIO{}, nil // the runtime's block I/O classes
		},
		RDTClass: func(class string) (*rspec.LinuxIntelRdt, error) {
			return &rspec.LinuxIntelRdt{ClosID: class}, nil
		},
	}

	spec := &rspec.Spec{Linux: &rspec.Linux{}}
	adj := &api.ContainerAdjustment{}
	adj.AddAnnotation("example.com/owner", "10-memcap")
	adj.SetLinuxMemoryLimit(1 << 20)
	fmt.Println(applier.Apply(spec, adj), spec.Annotations == nil)

	adj.SetLinuxMemoryLimit(256 << 20)
	fmt.Println(applier.Apply(spec, adj), spec.Annotations["example.com/owner"], *spec.Linux.Resources.Memory.Limit)
	// Output:
	// resource check: memory limit below the runtime's minimum true
	// <nil> 10-memcap 268435456
}
