// SPDX-License-Identifier: Apache-2.0

// The small waits: on a channel, on a context, on a WaitGroup, each bounded.

package syncx

import (
	"context"
	"sync"
	"time"
)

// Closed reports whether ch is closed, without waiting.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Within waits up to d for ch to close; it reports whether it did.
func Within(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// Sleep waits d unless ctx ends first; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// WaitOrGiveUp waits for wg, up to ctx's end and grace after it; it reports
// whether wg's count reached zero in time. Giving up leaves a goroutine
// waiting on wg until it does.
func WaitOrGiveUp(ctx context.Context, wg *sync.WaitGroup, grace time.Duration) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		wg.Wait()
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	return Within(done, grace)
}
