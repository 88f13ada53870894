// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// TestOutOfRangeValues: Apply and ApplyResources refuse what the kernel or
// the OCI spec cannot take, naming the field, and leave the spec unchanged.
// internal/limits has the table of every field.
func TestOutOfRangeValues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		res   *api.LinuxResources
		field string
	}{
		{"negative memory limit", &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: -2}}}, "memory.limit"},
		{"negative CPU quota", &api.LinuxResources{Cpu: &api.LinuxCPU{Quota: &api.OptionalInt64{Value: -5}}}, "cpu.quota"},
		{"CPU shares wrapped around", &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 1<<64 - 1}}}, "cpu.shares"},
		{"CPU period 1", &api.LinuxResources{Cpu: &api.LinuxCPU{Period: &api.OptionalUInt64{Value: 1}}}, "cpu.period"},
		{"cpuset garbage", &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0-3,all"}}, "cpu.cpus"},
		{"pids -7", &api.LinuxResources{Pids: &api.LinuxPids{Limit: -7}}, "pids.limit"},
		{"unified path", &api.LinuxResources{Unified: map[string]string{"../cgroup.procs": "1"}}, `unified["../cgroup.procs"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for what, apply := range map[string]func(*api.LinuxResources) error{
				"ApplyResources": func(r *api.LinuxResources) error { return ApplyResources(sampleSpec(), r) },
				"Apply": func(r *api.LinuxResources) error {
					return Apply(sampleSpec(), linuxAdj(&api.LinuxContainerAdjustment{Resources: r}))
				},
			} {
				err := apply(tc.res)
				if !errors.Is(err, ErrInvalidAdjustment) || !errors.Is(err, limits.ErrOutOfRange) || !strings.Contains(err.Error(), tc.field+":") {
					t.Errorf("%s: error %v, want an invalid adjustment naming %s", what, err, tc.field)
				}
			}
			spec := sampleSpec()
			before := copySpec(t, spec)
			_ = ApplyResources(spec, tc.res)
			if !reflect.DeepEqual(spec, before) {
				t.Error("the spec changed")
			}
		})
	}
}
