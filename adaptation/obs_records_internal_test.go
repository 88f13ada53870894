// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"runtime"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// A record names its validators without holding on to their instances: a
// departed validator's connection, buffers and counters can be collected
// while the records of the containers it approved are kept.
func TestContainerRecordDoesNotPinValidators(t *testing.T) {
	var r containerRecords
	r.init(4)
	collected := make(chan struct{})
	func() {
		p := &plugin{id: "10-validator"}
		runtime.AddCleanup(p, func(ch chan struct{}) { close(ch) }, collected)
		validators := []*plugin{p}
		r.created(&api.Container{Id: "c1"}, merge.ContainerOwners{}, validators, false)
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
	rec, ok := r.get("c1")
	if !ok || len(rec.Validation.Validators) != 1 || rec.Validation.Validators[0] != "10-validator" {
		t.Errorf("record %+v, want approved by 10-validator", rec)
	}
}
