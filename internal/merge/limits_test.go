// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// TestOutOfRangeValues: a value the kernel or the OCI spec cannot take fails
// the reply of the plugin that sent it, naming the plugin and the field, in
// an adjustment and in an update alike (ignore_failure does not excuse it).
// internal/limits has the table of every field.
func TestOutOfRangeValues(t *testing.T) {
	negative := &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: -2}}}
	badCPUs := &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0-3,x"}}
	for _, tc := range []struct {
		name  string
		apply func() error
		field string
	}{
		{"create: adjustment", func() error {
			return NewCreate(createReq()).Apply(pa, resAdj(negative))
		}, "memory.limit"},
		{"create: oom_score_adj", func() error {
			return NewCreate(createReq()).Apply(pa, linuxAdj(&api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: 1001}}))
		}, "oom_score_adj"},
		{"create: rlimit", func() error {
			return NewCreate(createReq()).Apply(pa, &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{
				Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Soft: 10, Hard: 1}}}})
		}, "rlimits[RLIMIT_NOFILE]"},
		{"create: update of another container", func() error {
			return NewCreate(createReq()).Apply(pa, &api.CreateContainerResponse{Update: []*api.ContainerUpdate{upd("c2", true, badCPUs)}})
		}, "cpu.cpus"},
		{"create: an I/O priority class the API does not define", func() error {
			return NewCreate(createReq()).Apply(pa, linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: 12345}}))
		}, "io_priority.class"},
		{"create: a scheduling policy the API does not define", func() error {
			return NewCreate(createReq()).Apply(pa, linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: 99}}))
		}, "scheduler.policy"},
		{"update", func() error {
			return NewUpdate(&api.UpdateContainerRequest{Container: &api.Container{Id: ctrID}}).Apply(pa, updRsp(upd(ctrID, false, negative)))
		}, "memory.limit"},
		{"stop", func() error {
			return NewStop(nil).Apply(pa, &api.StopContainerResponse{Update: []*api.ContainerUpdate{upd("c1", true, badCPUs)}})
		}, "cpu.cpus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.apply()
			if !errors.Is(err, ErrInvalidAdjustment) || !errors.Is(err, limits.ErrOutOfRange) {
				t.Fatalf("error %v, want ErrInvalidAdjustment and limits.ErrOutOfRange", err)
			}
			if msg := err.Error(); !strings.Contains(msg, `plugin "`+pa+`"`) || !strings.Contains(msg, tc.field+":") {
				t.Fatalf("error %q does not name plugin %s and field %s", msg, pa, tc.field)
			}
		})
	}
}
