// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSyncBackoff(t *testing.T) {
	clock := time.Unix(0, 0)
	b := newSyncBackoff()
	b.now = func() time.Time { return clock }
	refused := func(id string) bool { return errors.Is(b.check(id), ErrSyncBackoff) }

	b.timedOut("10-slow")
	if !refused("10-slow") || refused("20-other") {
		t.Fatal("after a timeout: want only the plugin that timed out refused")
	}
	clock = clock.Add(syncBackoffFirst)
	if refused("10-slow") {
		t.Fatal("still refused once the first back-off ended")
	}
	b.timedOut("10-slow")
	clock = clock.Add(syncBackoffFirst)
	if !refused("10-slow") {
		t.Fatal("a second timeout in a row did not double the back-off")
	}
	for range 10 {
		b.timedOut("10-slow")
	}
	clock = clock.Add(syncBackoffMax)
	if refused("10-slow") {
		t.Fatal("the back-off grew past its maximum")
	}
	// Joining in between does not reset the doubling; a quiet spell does.
	b.timedOut("10-slow")
	clock = clock.Add(syncBackoffMax)
	b.timedOut("10-slow")
	clock = clock.Add(syncBackoffFirst)
	if !refused("10-slow") {
		t.Fatal("a timeout soon after the last one went back to the first back-off")
	}
	clock = clock.Add(2 * syncBackoffMax)
	b.timedOut("10-slow")
	clock = clock.Add(syncBackoffFirst)
	if refused("10-slow") {
		t.Fatal("after a quiet spell the back-off did not start over")
	}
	for i := range syncBackoffKept + 10 {
		b.timedOut(fmt.Sprintf("%d-flood", i))
	}
	if len(b.byID) != syncBackoffKept || len(b.order) != syncBackoffKept || refused("0-flood") || !refused(fmt.Sprintf("%d-flood", syncBackoffKept+9)) {
		t.Fatalf("%d identities kept, want the newest %d", len(b.byID), syncBackoffKept)
	}
}
