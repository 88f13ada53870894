// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
)

// TestUpdateLoop: once synchronized, the plugin updates containers from its
// snapshot, waits while it knows none, then updates only the one created
// after the first was removed; every call is logged with its outcome.
func TestUpdateLoop(t *testing.T) {
	path := logPath(t)
	runtimeEnd, pluginEnd := connPair(t)
	rt := newFakeRuntime(t, runtimeEnd, nil)
	runErr := make(chan error, 1)
	go func() {
		runErr <- Run(context.Background(), pluginEnd, Config{Name: "loop", Index: "01", LogPath: path,
			UpdateLoop: &UpdateLoop{SharesEvery: 2}})
	}()
	rt.waitRegistered(t)
	ctx := context.Background()
	if _, err := rt.plugin.Synchronize(ctx, &api.SynchronizeRequest{Containers: []*api.Container{{Id: "snap"}}}); err != nil {
		t.Fatalf("Synchronize: %v", err)
	}
	if got := nextUpdate(t, rt); got.GetContainerId() != "snap" {
		t.Fatalf("first update names %q, want the snapshot's container", got.GetContainerId())
	}
	if _, err := rt.plugin.RemoveContainer(ctx, &api.RemoveContainerRequest{Container: &api.Container{Id: "snap"}}); err != nil {
		t.Fatalf("RemoveContainer: %v", err)
	}
	if _, err := rt.plugin.CreateContainer(ctx, &api.CreateContainerRequest{Container: &api.Container{Id: "new"}}); err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	// Calls picked before the removal may still name "snap"; once one names
	// "new", every later one must.
	received, seen, shares := 1, 0, 0
	for seen < 4 {
		u := nextUpdate(t, rt)
		received++
		switch {
		case u.GetContainerId() == "new":
			seen++
		case seen > 0:
			t.Fatalf("update names %q after the loop picked the container created after its removal", u.GetContainerId())
		}
		if u.GetLinux().GetResources().GetCpu().GetShares() != nil {
			shares++
		}
	}
	if shares == 0 {
		t.Error("no update changed CPU shares")
	}
	rt.close()
	if err := waitErr(t, runErr, "Run"); err != nil {
		t.Errorf("Run after the runtime closed: %v", err)
	}
	recs, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := Find(recs, "loop", RecordUpdateContainers)
	if len(calls) < received-1 {
		t.Fatalf("%d UpdateContainers records, want at least the %d calls answered before the last", len(calls), received-1)
	}
	for _, r := range calls {
		// The fake runtime reports every single update as failed.
		if r.Outcome != OutcomeFailed || r.Container == "" {
			t.Errorf("record %+v: want outcome %q naming a container", r, OutcomeFailed)
		}
	}
}

// TestUpdateLoopWaitsForAContainer: with no container known the loop sends
// nothing until one is created, and the first call names it.
func TestUpdateLoopWaitsForAContainer(t *testing.T) {
	runtimeEnd, pluginEnd := connPair(t)
	rt := newFakeRuntime(t, runtimeEnd, nil)
	runErr := make(chan error, 1)
	go func() {
		runErr <- Run(context.Background(), pluginEnd, Config{Name: "wait", Index: "01", UpdateLoop: &UpdateLoop{}})
	}()
	rt.waitRegistered(t)
	ctx := context.Background()
	if _, err := rt.plugin.Synchronize(ctx, &api.SynchronizeRequest{}); err != nil {
		t.Fatalf("Synchronize: %v", err)
	}
	if _, err := rt.plugin.CreateContainer(ctx, &api.CreateContainerRequest{Container: &api.Container{Id: "first"}}); err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	if got := nextUpdate(t, rt); got.GetContainerId() != "first" {
		t.Fatalf("first update names %q, want the first container created", got.GetContainerId())
	}
	rt.close()
	if err := waitErr(t, runErr, "Run"); err != nil {
		t.Errorf("Run after the runtime closed: %v", err)
	}
}

func TestUpdateLoopConfig(t *testing.T) {
	err := Config{UpdateLoop: &UpdateLoop{SharesEvery: -1}}.Validate()
	if !errors.Is(err, ErrConfig) {
		t.Errorf("negative shares_every: %v, want ErrConfig", err)
	}
}

// nextUpdate returns the single update of the next UpdateContainers call.
func nextUpdate(t *testing.T, rt *fakeRuntime) *api.ContainerUpdate {
	t.Helper()
	select {
	case req := <-rt.updates:
		if len(req.GetUpdate()) != 1 {
			t.Fatalf("UpdateContainers with %d updates, want one", len(req.GetUpdate()))
		}
		return req.GetUpdate()[0]
	case <-time.After(waitTimeout):
		t.Fatal("no UpdateContainers call")
		return nil
	}
}
