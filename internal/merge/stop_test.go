// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"testing"

	"github.com/nrikit/nrikit/api"
)

func TestStop(t *testing.T) {
	s := NewStop(&api.StopContainerRequest{Container: &api.Container{Id: ctrID}})
	stopRsp := func(us ...*api.ContainerUpdate) *api.StopContainerResponse {
		return &api.StopContainerResponse{Update: us}
	}
	// The stopped container gets no special treatment.
	checkErr(t, s.Apply(pa, stopRsp(upd(ctrID, false, memLimit(1)), upd("c1", false, memLimit(1)))), nil, "")
	// A conflicting reply is rejected as a whole and leaves no trace...
	checkErr(t, s.Apply(pb, stopRsp(upd("c2", false, memLimit(2)), upd("c1", false, memLimit(2)))),
		ErrConflict, `plugins "10-a" and "20-b" both tried to set memory limit`)
	// ...so teardown can go on with the next plugin.
	checkErr(t, s.Apply(pc, stopRsp(upd("c1", true, cpuShares(3)), upd("c2", false, cpuShares(3)))), nil, "")
	checkErr(t, s.Apply(pc, stopRsp(nil)), ErrInvalidAdjustment, "")
	checkErr(t, s.Apply(pc, nil), nil, "")

	got := s.Response().Update
	if len(got) != 3 {
		t.Fatalf("updates = %v", got)
	}
	mustEqual(t, "stopped", got[0], upd(ctrID, false, memLimit(1)))
	mustEqual(t, "c1", got[1], upd("c1", false, &api.LinuxResources{
		Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1}},
		Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 3}},
	}))
	mustEqual(t, "c2", got[2], upd("c2", false, cpuShares(3)))
}
