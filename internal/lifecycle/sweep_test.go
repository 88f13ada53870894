// SPDX-License-Identifier: Apache-2.0

// Unit tests of when the store asks for a listing of its own.

package lifecycle

import (
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// addPods records n new pods, created through the store.
func addPods(l *Store[*plugin], prefix string, n int) {
	for i := range n {
		runPod(l, &api.PodSandbox{Id: fmt.Sprintf("%s-%d", prefix, i)})
	}
}

func asked(l *Store[*plugin]) bool {
	select {
	case <-l.Overgrown():
		return true
	default:
		return false
	}
}

// TestOvergrownAsksForOneListing: the store asks for a listing once its
// records outgrow the bound (SweepSlack for a new store), one request
// pending at a time; a listing that shows them gone brings them back under
// it.
func TestOvergrownAsksForOneListing(t *testing.T) {
	l := New[*plugin]()
	addPods(l, "a", SweepSlack)
	if asked(l) || l.IsOvergrown() {
		t.Fatalf("asked for a listing at %d records, bound %d", l.Records(), SweepSlack)
	}
	addPods(l, "b", 2)
	if !l.IsOvergrown() || !asked(l) {
		t.Fatalf("no listing asked for at %d records, bound %d", l.Records(), SweepSlack)
	}
	if asked(l) {
		t.Fatal("a second request was pending")
	}
	for range 2 {
		l.SweepListed(nil, nil, l.Now())
	}
	if n := l.Records(); n != 0 || l.IsOvergrown() {
		t.Fatalf("after two listings of nothing: %d records, overgrown %v", n, l.IsOvergrown())
	}
}

// TestPostponeSweep: after a failed listing, the next is asked for once the
// records double, not on the next new record.
func TestPostponeSweep(t *testing.T) {
	l := New[*plugin]()
	n := SweepSlack + 1
	addPods(l, "a", n)
	if !asked(l) {
		t.Fatal("no listing asked for")
	}
	l.PostponeSweep()
	addPods(l, "b", n)
	if asked(l) || l.IsOvergrown() {
		t.Fatalf("asked again at %d records, after a failed listing at %d", l.Records(), n)
	}
	addPods(l, "c", 1)
	if !asked(l) {
		t.Fatalf("not asked again at %d records, after a failed listing at %d", l.Records(), n)
	}
}

// TestListingSetsTheBound: after a listing, the next is asked for once as
// many new records as the runtime has objects were made, and at least
// SweepSlack.
func TestListingSetsTheBound(t *testing.T) {
	l := New[*plugin]()
	const live = 3 * SweepSlack
	var listed []*api.PodSandbox
	for i := range live {
		pod := &api.PodSandbox{Id: fmt.Sprintf("live-%d", i), State: api.PodSandboxState_POD_SANDBOX_READY}
		runPod(l, pod)
		listed = append(listed, pod)
	}
	asked(l) // drained: outgrown on the way
	l.SweepListed(listed, nil, l.Now())
	addPods(l, "new", live)
	if asked(l) {
		t.Fatalf("asked at %d records, %d listed", l.Records(), live)
	}
	addPods(l, "more", 1)
	if !asked(l) {
		t.Fatalf("not asked at %d records, %d listed", l.Records(), live)
	}
}
