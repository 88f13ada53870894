// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestStopWhileSyncFnWaitsForTheCallersLock: containerd holds its NRI mutex
// while it calls Stop, and its SyncFn takes that mutex. A plugin joining at
// that moment waits inside SyncFn for as long as Stop's caller holds the
// mutex; Stop must still return by its context's end, and the plugin must
// never join once the mutex is released.
func TestStopWhileSyncFnWaitsForTheCallersLock(t *testing.T) {
	var runtimeMu sync.Mutex
	inSyncFn := make(chan struct{})
	var once sync.Once
	e := newEnv(t)
	e.store.syncWith = func(ctx context.Context, cb adaptation.SyncCB) error {
		once.Do(func() { close(inSyncFn) })
		runtimeMu.Lock()
		defer runtimeMu.Unlock()
		_, err := cb(ctx, []*api.PodSandbox{testPod("s1")}, nil)
		return err
	}
	e.start()

	runtimeMu.Lock() // the runtime is in its Stop path, holding its mutex
	e.external("10", "joiner", testplugin.Config{})
	err := stopHoldingTheLock(t, e, &runtimeMu, inSyncFn, "SyncFn")
	if !errors.Is(err, adaptation.ErrStopAbandoned) {
		t.Errorf("Stop returned %v, want ErrStopAbandoned", err)
	}

	// Once SyncFn goes on, the plugin fails its sync and never joins; the
	// goroutines it held end (goleak checks them when the tests end).
	ended := e.waitLoggedMessage("nrikit: plugin handshake ended by Stop")
	if msg := fmt.Sprint(ended[0].Data["error"]); !strings.Contains(msg, "10-joiner") || !strings.Contains(msg, "synchronize") {
		t.Errorf("the abandoned handshake ended with %q, want 10-joiner's synchronize", msg)
	}
	if got := pluginIDs(e.a); len(got) != 0 {
		t.Errorf("plugins after Stop: %v, want none", got)
	}
	if got := e.events("joiner"); len(got) != 0 {
		t.Errorf("the abandoned plugin got events %v", got)
	}
}

// slowConfigure is an in-process plugin whose Configure waits for its
// context's end, telling the test once it is waiting.
type slowConfigure struct {
	api.PluginBase
	waiting chan struct{}
}

func (s *slowConfigure) Configure(ctx context.Context, _ *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	close(s.waiting)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestStopDuringStart: Start holds no lock while plugins join, so a Stop
// called meanwhile (say, a runtime shutting down at boot) ends the start at
// once instead of waiting for the plugins' timeouts. Start then reports it
// was interrupted, and nothing is left listening.
func TestStopDuringStart(t *testing.T) {
	slow := &slowConfigure{waiting: make(chan struct{})}
	e := newEnv(t, adaptation.WithRequestTimeout(time.Hour),
		adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "slow", Handler: slow}))
	started := make(chan error, 1)
	go func() { started <- e.a.Start(context.Background()) }()
	select {
	case <-slow.waiting:
	case <-time.After(waitLimit):
		t.Fatal("the built-in plugin was never configured")
	}
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		stopped <- e.a.Stop(ctx)
	}()
	for name, ch := range map[string]chan error{"Stop": stopped, "Start": started} {
		select {
		case err := <-ch:
			if want := map[string]error{"Stop": nil, "Start": adaptation.ErrStartInterrupted}[name]; !errors.Is(err, want) && err != want {
				t.Errorf("%s returned %v, want %v", name, err, want)
			}
		case <-time.After(waitLimit):
			t.Fatalf("%s did not return while the other ran", name)
		}
	}
	if conn, err := net.Dial("unix", e.socket); err == nil {
		conn.Close()
		t.Error("something listens on the socket after an interrupted Start")
	}
}

// TestStopWhileUpdateFnWaitsForTheCallersLock: a plugin's UpdateContainers
// inside the runtime's UpdateFn, waiting for the lock that Stop's caller
// holds (as containerd's UpdateFn does), cannot be interrupted: Stop returns
// by its deadline with ErrStopAbandoned, naming UpdateFn, rather than
// pretending everything has ended.
func TestStopWhileUpdateFnWaitsForTheCallersLock(t *testing.T) {
	var runtimeMu sync.Mutex
	inUpdateFn := make(chan struct{})
	var once sync.Once
	e := newEnv(t)
	e.store.onUpdate = func(context.Context, []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
		once.Do(func() { close(inUpdateFn) })
		runtimeMu.Lock()
		defer runtimeMu.Unlock()
		return nil, nil
	}
	e.start()
	runtimeMu.Lock() // the runtime is in its Stop path, holding its mutex
	e.external("10", "updater", testplugin.Config{Flood: &testplugin.Flood{Count: 1}})
	err := stopHoldingTheLock(t, e, &runtimeMu, inUpdateFn, "UpdateFn")
	if !errors.Is(err, adaptation.ErrStopAbandoned) || !strings.Contains(err.Error(), "UpdateFn") {
		t.Errorf("Stop returned %v, want ErrStopAbandoned naming UpdateFn", err)
	}
}

// stopHoldingTheLock calls Stop, with a short deadline, while the test holds
// runtimeMu and a plugin's call waits for it inside fn (closing reached once
// there), then releases the lock and returns what Stop returned.
func stopHoldingTheLock(t *testing.T, e *env, runtimeMu *sync.Mutex, reached <-chan struct{}, fn string) error {
	t.Helper()
	select {
	case <-reached:
	case <-time.After(waitLimit):
		runtimeMu.Unlock()
		t.Fatalf("the plugin's call never reached %s", fn)
	}
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		stopped <- e.a.Stop(ctx)
	}()
	defer runtimeMu.Unlock()
	select {
	case err := <-stopped:
		return err
	case <-time.After(waitLimit):
		t.Fatalf("Stop did not return while %s waited for the lock its caller holds", fn)
		return nil
	}
}
