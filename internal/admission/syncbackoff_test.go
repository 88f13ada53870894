// SPDX-License-Identifier: Apache-2.0

// Tests of the back-off of plugins that timed out synchronizing.

package admission

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSyncBackoff(t *testing.T) {
	clock := time.Unix(0, 0)
	b := NewSyncBackoff()
	b.now = func() time.Time { return clock }
	refused := func(id string) bool { return errors.Is(b.Check(id), ErrSyncBackoff) }

	b.TimedOut("10-slow")
	if !refused("10-slow") || refused("20-other") {
		t.Fatal("after a timeout: want only the plugin that timed out refused")
	}
	clock = clock.Add(syncBackoffFirst)
	if refused("10-slow") {
		t.Fatal("still refused once the first back-off ended")
	}
	b.TimedOut("10-slow")
	clock = clock.Add(syncBackoffFirst)
	if !refused("10-slow") {
		t.Fatal("a second timeout in a row did not double the back-off")
	}
	for range 10 {
		b.TimedOut("10-slow")
	}
	clock = clock.Add(syncBackoffMax)
	if refused("10-slow") {
		t.Fatal("the back-off grew past its maximum")
	}
	// Joining in between does not reset the doubling; a quiet spell does.
	b.TimedOut("10-slow")
	clock = clock.Add(syncBackoffMax)
	b.TimedOut("10-slow")
	clock = clock.Add(syncBackoffFirst)
	if !refused("10-slow") {
		t.Fatal("a timeout soon after the last one went back to the first back-off")
	}
	clock = clock.Add(2 * syncBackoffMax)
	b.TimedOut("10-slow")
	clock = clock.Add(syncBackoffFirst)
	if refused("10-slow") {
		t.Fatal("after a quiet spell the back-off did not start over")
	}
	for i := range syncBackoffKept + 10 {
		b.TimedOut(fmt.Sprintf("%d-flood", i))
	}
	if len(b.byID) != syncBackoffKept || len(b.order) != syncBackoffKept || refused("0-flood") || !refused(fmt.Sprintf("%d-flood", syncBackoffKept+9)) {
		t.Fatalf("%d identities kept, want the newest %d", len(b.byID), syncBackoffKept)
	}
}

// TestSyncBackoffUntil: Until is when the back-off of a plugin that timed
// out ends, zero for one that never did.
func TestSyncBackoffUntil(t *testing.T) {
	clock := time.Unix(1000, 0)
	b := NewSyncBackoff()
	b.now = func() time.Time { return clock }
	b.TimedOut("10-slow")
	if got, want := b.Until("10-slow"), clock.Add(syncBackoffFirst); !got.Equal(want) {
		t.Errorf("Until after a first timeout: %v, want %v", got, want)
	}
	if got := b.Until("20-other"); !got.IsZero() {
		t.Errorf("Until of a plugin that never timed out: %v, want zero", got)
	}
	if err := b.Check("10-slow"); err == nil || err.Error() != ErrSyncBackoff.Error()+" (10s left)" {
		t.Errorf("Check during the back-off: %v, want ErrSyncBackoff saying the time left", err)
	}
}
