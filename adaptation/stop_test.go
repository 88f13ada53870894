package adaptation_test

import (
	"context"
	"errors"
	"fmt"
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
	select {
	case <-inSyncFn:
	case <-time.After(waitLimit):
		runtimeMu.Unlock()
		t.Fatal("the joining plugin never reached SyncFn")
	}
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		stopped <- e.a.Stop(ctx)
	}()
	var err error
	select {
	case err = <-stopped:
	case <-time.After(waitLimit):
		runtimeMu.Unlock()
		t.Fatal("Stop did not return while SyncFn waited for the lock its caller holds")
	}
	runtimeMu.Unlock()
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
