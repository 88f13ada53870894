// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"testing"

	"github.com/nrikit/nrikit/api"
)

func updateReq() *api.UpdateContainerRequest {
	return &api.UpdateContainerRequest{
		Container:      &api.Container{Id: ctrID},
		LinuxResources: memLimit(100),
	}
}

func updRsp(us ...*api.ContainerUpdate) *api.UpdateContainerResponse {
	return &api.UpdateContainerResponse{Update: us}
}

func TestUpdateUntouched(t *testing.T) {
	u := NewUpdate(updateReq())
	checkErr(t, u.Apply(pa, nil), nil, "")
	checkErr(t, u.Apply(pb, updRsp(upd("c1", false, cpuShares(1024)))), nil, "")
	got := u.Response().Update
	if len(got) != 2 {
		t.Fatalf("updates = %v", got)
	}
	mustEqual(t, "others first", got[0], upd("c1", false, cpuShares(1024)))
	// Our choice for the untouched updated container: the requested
	// resources, not a null entry.
	mustEqual(t, "updated container last", got[1], upd(ctrID, false, memLimit(100)))
}

func TestUpdate(t *testing.T) {
	type step struct {
		plugin string
		rsp    *api.UpdateContainerResponse
	}
	cases := []struct {
		name  string
		steps []step
		err   error
		text  string
		check func(t *testing.T, u *Update, req *api.UpdateContainerRequest)
	}{{
		name:  "requested resources are owned by nobody; later plugins see the merge",
		steps: []step{{pa, updRsp(upd(ctrID, false, memLimit(200)))}, {pb, updRsp(upd(ctrID, false, cpuShares(3024)))}},
		check: func(t *testing.T, u *Update, req *api.UpdateContainerRequest) {
			want := &api.LinuxResources{
				Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 200}},
				Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 3024}},
			}
			mustEqual(t, "request", req.LinuxResources, want)
			got := u.Response().Update
			mustEqual(t, "entry", got[len(got)-1], upd(ctrID, false, want))
		},
	}, {
		name:  "conflict on the updated container",
		steps: []step{{pa, updRsp(upd(ctrID, false, memLimit(200)))}, {pb, updRsp(upd(ctrID, false, memLimit(300)))}},
		err:   ErrConflict,
		text:  `update of container "ctr0": plugins "10-a" and "20-b" both tried to set memory limit`,
	}, {
		name: "conflict with ignore_failure is discarded",
		steps: []step{
			{pa, updRsp(upd(ctrID, false, memLimit(200)))},
			{pb, updRsp(upd(ctrID, true, memLimit(300)))},
		},
		check: func(t *testing.T, u *Update, req *api.UpdateContainerRequest) {
			if got := req.LinuxResources.Memory.Limit.GetValue(); got != 200 {
				t.Errorf("request limit = %d", got)
			}
			if len(u.Discarded()) != 1 {
				t.Errorf("discarded = %v", u.Discarded())
			}
		},
	}, {
		name: "updated container's entry last, others in order of first sight",
		steps: []step{
			{pa, updRsp(upd("c2", false, memLimit(1)), upd(ctrID, true, cpuShares(1024)))},
			{pb, &api.UpdateContainerResponse{
				Update: []*api.ContainerUpdate{upd("c3", false, memLimit(1)), upd("c2", false, cpuShares(2024))},
				Evict:  []*api.ContainerEviction{{ContainerId: "c9"}},
			}},
		},
		check: func(t *testing.T, u *Update, _ *api.UpdateContainerRequest) {
			rsp := u.Response()
			var ids []string
			for _, x := range rsp.Update {
				ids = append(ids, x.ContainerId)
			}
			if len(ids) != 3 || ids[0] != "c2" || ids[1] != "c3" || ids[2] != ctrID {
				t.Errorf("order = %v", ids)
			}
			if !rsp.Update[2].IgnoreFailure {
				t.Errorf("ignore_failure of the only contribution lost: %v", rsp.Update[2])
			}
			if len(rsp.Evict) != 1 {
				t.Errorf("evict = %v", rsp.Evict)
			}
		},
	}, {
		name:  "update without container ID",
		steps: []step{{pa, updRsp(upd("", false, memLimit(1)))}},
		err:   ErrInvalidAdjustment,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := updateReq()
			u := NewUpdate(req)
			for i, s := range tc.steps {
				err := u.Apply(s.plugin, s.rsp)
				if i < len(tc.steps)-1 {
					checkErr(t, err, nil, "")
				} else {
					checkErr(t, err, tc.err, tc.text)
				}
			}
			if tc.check != nil {
				tc.check(t, u, req)
			}
		})
	}
}

func TestUpdateNilRequest(t *testing.T) {
	u := NewUpdate(nil)
	checkErr(t, u.Apply(pa, updRsp(upd("c1", false, memLimit(1)))), nil, "")
	if got := u.Response().Update; len(got) != 2 || got[0].ContainerId != "c1" {
		t.Errorf("updates = %v", got)
	}
}
