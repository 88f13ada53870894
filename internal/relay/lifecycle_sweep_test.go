// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/lifecycle"
)

// createOnlyRuntime relays only CreateContainer, as Docker Engine does, and
// keeps only its last live containers, the older ones going away without
// any event (docker run --rm). It locks as containerd does: its mutex is
// held around every event call and taken by SyncFn, which signals listed
// after each listing.
type createOnlyRuntime struct {
	mu     sync.Mutex
	live   []*api.Container // oldest first
	keep   int
	listed chan struct{}
}

func (r *createOnlyRuntime) sync(ctx context.Context, cb SyncCB) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var pods []*api.PodSandbox
	for _, c := range r.live {
		pods = append(pods, &api.PodSandbox{Id: c.GetPodSandboxId(), State: api.PodSandboxState_POD_SANDBOX_READY})
	}
	_, err := cb(ctx, pods, r.live)
	select {
	case r.listed <- struct{}{}:
	default:
	}
	return err
}

func (r *createOnlyRuntime) create(a *Relay, i int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	pod := &api.PodSandbox{Id: fmt.Sprintf("pod-%d", i)}
	ctr := &api.Container{Id: fmt.Sprintf("ctr-%d", i), PodSandboxId: pod.Id, Args: []string{"/bin/app"}}
	if _, err := a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		return err
	}
	r.live = append(r.live, ctr)
	if len(r.live) > r.keep {
		r.live = r.live[1:]
	}
	return nil
}

// TestRecordsBoundedWithoutTeardown: a runtime that relays no teardown
// event, with no plugin joining, creates 10,000 containers and keeps a few:
// nrikit lists its state when its records outgrow the last listing, and
// forgets what the runtime no longer has, so the records (and the heap they
// hold) stay flat instead of growing with every container ever created.
func TestRecordsBoundedWithoutTeardown(t *testing.T) {
	const (
		creations = 10000
		keep      = 16
		// Each creation records a container and its pod. After a listing,
		// the records are the live ones and those created since the listing
		// before; a new listing comes once SweepSlack more were created.
		bound = 2*keep + 3*lifecycle.SweepSlack
	)
	rt := &createOnlyRuntime{keep: keep, listed: make(chan struct{}, 1)}
	base := api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}
	cfg := testConfig(t)
	cfg.Sync = rt.sync
	cfg.Builtins = []Builtin{{Index: "10", Name: "adjuster", Handler: base}}
	a := New(cfg)
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := a.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	var heapAt2000 uint64
	for i := 0; i < creations; i++ {
		if err := rt.create(a, i); err != nil {
			t.Fatal(err)
		}
		if (i+1)%1000 != 0 {
			continue
		}
		// The listing is asynchronous: wait for it to catch up.
		n := awaitRecordsWithin(t, a, rt, bound)
		heap := heapInUse()
		if i+1 == 2000 {
			heapAt2000 = heap
		}
		t.Logf("after %5d creations: %4d records, heap %d KiB", i+1, n, heap>>10)
	}
	if grown := int64(heapInUse()) - int64(heapAt2000); grown > 8<<20 {
		t.Errorf("heap grew %d KiB from 2,000 to %d creations, want flat", grown>>10, creations)
	}
}

// awaitRecordsWithin waits, up to a deadline, for the records to be within
// bound, checking again after each of the runtime's listings.
func awaitRecordsWithin(t *testing.T, a *Relay, rt *createOnlyRuntime, bound int) int {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		n := a.lifecycle.Records()
		if n <= bound {
			return n
		}
		select {
		case <-rt.listed:
		case <-deadline:
			t.Fatalf("%d records, %d containers live: want at most %d", n, rt.keep, bound)
		}
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestFailingListingsBackOff: a SyncFn that keeps failing is not called on
// every creation once the records outgrew the last listing, but once per
// doubling of the records.
func TestFailingListingsBackOff(t *testing.T) {
	const creations = 10000
	var calls atomic.Int64
	called := make(chan struct{}, 1)
	rt := &createOnlyRuntime{keep: 16}
	failing := func(context.Context, SyncCB) error {
		rt.mu.Lock() // the runtime's lock, as its listing would take
		defer rt.mu.Unlock()
		calls.Add(1)
		select {
		case called <- struct{}{}:
		default:
		}
		return errors.New("store unavailable")
	}
	cfg := testConfig(t)
	cfg.Sync = failing
	a := New(cfg)
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := a.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	for i := 0; i < creations; i++ {
		if err := rt.create(a, i); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-called:
	case <-time.After(20 * time.Second):
		t.Fatal("SyncFn was never called to list the runtime's state")
	}
	// 2 records per creation: at most one listing each time they pass
	// 1,024, 2,048, ... 16,384.
	if n := calls.Load(); n > 6 {
		t.Errorf("a failing SyncFn was called %d times for %d creations, want at most 6", n, creations)
	}
}
