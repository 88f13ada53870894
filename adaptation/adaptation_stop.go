package adaptation

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// closingGrace is how long Stop still waits after its context ended, for
// goroutines that only finish closing connections it has just closed.
const closingGrace = time.Second

// waitOrGiveUp waits for Stop's goroutines (handshakes, watchers) to end, up
// to ctx's end and closingGrace after it. What can outlast that is a
// handshake inside the runtime's SyncFn, which nrikit cannot interrupt: its
// context is cancelled, so once SyncFn returns, the plugin fails its sync
// and is dropped without joining.
func waitOrGiveUp(ctx context.Context, wg *sync.WaitGroup, why string) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		wg.Wait()
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	grace := time.NewTimer(closingGrace)
	defer grace.Stop()
	select {
	case <-done:
		return nil
	case <-grace.C:
		return fmt.Errorf("%w: %s", ErrStopAbandoned, why)
	}
}
