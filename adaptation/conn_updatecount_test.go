// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// minimalUpdates are n updates of 20 bytes or so on the wire each: the
// smallest that reach UpdateFn, and the most a 4 MiB request can hold.
func minimalUpdates(n int) []*api.ContainerUpdate {
	out := make([]*api.ContainerUpdate, n)
	for i := range out {
		out[i] = testplugin.Update{ContainerID: fmt.Sprintf("%x", i), CPUShares: 512}.ContainerUpdate()
	}
	return out
}

// TestUnsolicitedUpdatesAreCounted: an UpdateContainers call with more than
// MaxUnsolicitedUpdates updates (a 3.9 MB request of 200,000 minimal ones,
// 67 MB once decoded) is refused with ResourceExhausted naming the limit and
// never reaches UpdateFn; the plugin stays and a call of exactly the limit
// reaches the runtime whole.
func TestUnsolicitedUpdatesAreCounted(t *testing.T) {
	e := newEnv(t)
	var calls, got atomic.Int64
	e.store.onUpdate = func(_ context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
		calls.Add(1)
		got.Add(int64(len(updates)))
		return nil, nil
	}
	e.start()
	p := dialRaw(t, e.socket)
	p.register(1, "20", "raw", api.MaskOf(api.Event_RUN_POD_SANDBOX))

	for i, n := range []int{adaptation.MaxUnsolicitedUpdates + 1, 200000} {
		stream := uint32(3 + 2*i) // odd and increasing, as ttrpc wants
		p.send(p.runtime, ttrpcMessage(stream, 1, 0, call(runtimeService, "UpdateContainers",
			&api.UpdateContainersRequest{Update: minimalUpdates(n)})))
		st := p.response(stream).GetStatus()
		if st.GetCode() != int32(codes.ResourceExhausted) || !strings.Contains(st.GetMessage(), fmt.Sprintf("%d, over the limit of %d", n, adaptation.MaxUnsolicitedUpdates)) {
			t.Errorf("UpdateContainers with %d updates answered %v, want ResourceExhausted naming the count and the limit", n, st)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("UpdateFn called %d times with refused updates", n)
	}
	p.send(p.runtime, ttrpcMessage(7, 1, 0, call(runtimeService, "UpdateContainers",
		&api.UpdateContainersRequest{Update: minimalUpdates(adaptation.MaxUnsolicitedUpdates)})))
	rsp := &api.UpdateContainersResponse{}
	r := p.response(7)
	if err := proto.Unmarshal(r.GetPayload(), rsp); err != nil || r.GetStatus().GetCode() != int32(codes.OK) || len(rsp.GetFailed()) != 0 {
		t.Errorf("UpdateContainers with %d updates answered %v %v (%v)", adaptation.MaxUnsolicitedUpdates, r.GetStatus(), rsp, err)
	}
	if calls.Load() != 1 || got.Load() != adaptation.MaxUnsolicitedUpdates {
		t.Errorf("UpdateFn got %d updates in %d calls, want %d in one", got.Load(), calls.Load(), adaptation.MaxUnsolicitedUpdates)
	}
}
