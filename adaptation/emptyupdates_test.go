// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// cgroupUpdater converts every update as runtime cgroup code written against
// the reference does, dereferencing ToOCI's CPU without a check, and keeps
// the container IDs it applied.
type cgroupUpdater struct {
	mu      sync.Mutex
	applied []string
}

func (c *cgroupUpdater) apply(updates []*api.ContainerUpdate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range updates {
		_ = u.GetLinux().GetResources().ToOCI().CPU.Shares
		c.applied = append(c.applied, u.GetContainerId())
	}
}

func (c *cgroupUpdater) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.applied
}

// TestUpdatesWithoutResourcesAreDropped: updates that carry no resources,
// returned from Synchronize or sent with UpdateContainers, have nothing to
// apply and never reach the runtime, whose conversion would give nil; the
// others do, and the plugin hears of no failure.
func TestUpdatesWithoutResourcesAreDropped(t *testing.T) {
	var cg cgroupUpdater
	e := newEnv(t)
	e.store.syncWith = func(ctx context.Context, cb adaptation.SyncCB) error {
		updates, err := cb(ctx, nil, nil)
		cg.apply(updates)
		return err
	}
	var updateFnCalls atomic.Int32
	e.store.onUpdate = func(_ context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
		updateFnCalls.Add(1)
		cg.apply(updates)
		return nil, nil
	}
	e.preinstall("10", "syncer", testplugin.Config{SyncUpdates: []testplugin.Update{
		{ContainerID: "sync-empty"}, {ContainerID: "sync-cpu", CPUShares: 512},
	}})
	e.start()
	e.waitPlugins("10-syncer")

	p := dialRaw(t, e.socket)
	p.register(1, "20", "raw", api.MaskOf(api.Event_RUN_POD_SANDBOX))
	p.send(p.runtime, ttrpcMessage(3, 1, 0, call(runtimeService, "UpdateContainers", &api.UpdateContainersRequest{
		Update: []*api.ContainerUpdate{
			{ContainerId: "unsolicited-empty"},
			testplugin.Update{ContainerID: "unsolicited-cpu", CPUShares: 256}.ContainerUpdate(),
		},
	})))
	rsp := &api.UpdateContainersResponse{}
	if err := proto.Unmarshal(p.response(3).GetPayload(), rsp); err != nil || len(rsp.GetFailed()) != 0 {
		t.Errorf("UpdateContainers answered %v (%v), want no failed update", rsp, err)
	}
	// Nothing with resources: UpdateFn is not called at all.
	p.send(p.runtime, ttrpcMessage(5, 1, 0, call(runtimeService, "UpdateContainers", &api.UpdateContainersRequest{
		Update: []*api.ContainerUpdate{{ContainerId: "only-empty"}},
	})))
	if err := proto.Unmarshal(p.response(5).GetPayload(), rsp); err != nil || len(rsp.GetFailed()) != 0 {
		t.Errorf("UpdateContainers answered %v (%v), want no failed update", rsp, err)
	}
	if n := updateFnCalls.Load(); n != 1 {
		t.Errorf("UpdateFn called %d times, want once (for the call with an update to apply)", n)
	}
	// The raw plugin synchronized too: its snapshot had no updates.
	if got := cg.list(); !equal(got, []string{"sync-cpu", "unsolicited-cpu"}) {
		t.Errorf("the runtime applied %q, want only the updates with resources", got)
	}
}
