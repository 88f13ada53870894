// SPDX-License-Identifier: Apache-2.0

package records

import (
	"runtime"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// validator stands for a validator plugin instance, which a record must not
// hold on to.
type validator struct {
	id string
}

func ids(vs []*validator) (int, func(int) string) {
	return len(vs), func(i int) string { return vs[i].id }
}

func create(r *Store, id string, vs ...*validator) {
	n, validatorID := ids(vs)
	r.Created(&api.Container{Id: id, Name: "n-" + id, PodSandboxId: "pod"}, merge.ContainerOwners{}, false, n, validatorID)
}

func live(r *Store) []string {
	var out []string
	for i := r.oldest; i != noSlot; i = r.slots[i].next {
		out = append(out, r.slots[i].id)
	}
	return out
}

// A record names its validators without holding on to their instances: a
// departed validator's connection, buffers and counters can be collected
// while the records of the containers it approved are kept.
func TestContainerRecordDoesNotPinValidators(t *testing.T) {
	r := New(4)
	collected := make(chan struct{})
	func() {
		p := &validator{id: "10-validator"}
		runtime.AddCleanup(p, func(ch chan struct{}) { close(ch) }, collected)
		create(r, "c1", p)
	}()
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		runtime.GC()
		select {
		case <-collected:
			done = true
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatal("the record keeps the departed validator's instance alive")
		}
	}
	rec, ok := r.Get("c1")
	if !ok || len(rec.Validation.Validators) != 1 || rec.Validation.Validators[0] != "10-validator" {
		t.Errorf("record %+v, want approved by 10-validator", rec)
	}
}
