// SPDX-License-Identifier: Apache-2.0

package ratelog

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := New(2, time.Second)
	l.now = func() time.Time { return now }
	allowed := 0
	for range 10 {
		if ok, _ := l.Allow(); ok {
			allowed++
		}
	}
	if allowed != 2 {
		t.Fatalf("%d lines allowed of a burst of 2", allowed)
	}
	now = now.Add(time.Second)
	if ok, suppressed := l.Allow(); !ok || suppressed != 8 {
		t.Fatalf("next window: Allow = %v, %d; want true, 8", ok, suppressed)
	}
	l.Allow()
	l.Allow()
	if n := l.Flush(); n != 1 {
		t.Fatalf("Flush = %d, want 1", n)
	}
	if n := l.Flush(); n != 0 {
		t.Fatalf("second Flush = %d, want 0", n)
	}
}
