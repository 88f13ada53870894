// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestClaimLogUndo: undoing an update's claims gives back the table as it
// was, for the validators' view too: earlier owners and removal marks come
// back, keys and fields the update added go, and a container the update
// brought into the table leaves it.
func TestClaimLogUndo(t *testing.T) {
	o := &owners{}
	_ = o.claim(ctrID, api.Field_MemLimit, "", pa)
	_ = o.claim(ctrID, api.Field_CgroupsUnified, "memory.high", pa)
	o.clear(ctrID, api.Field_HugepageLimits, "2MB", pb)
	want := o.clone().proto()

	l := o.logClaims(ctrID, pb)
	for _, c := range []struct {
		f   api.Field
		key string
	}{
		{api.Field_CPUShares, ""},                // a new simple field
		{api.Field_HugepageLimits, "2MB"},        // over pb's removal mark
		{api.Field_HugepageLimits, "1GB"},        // a new key of a known field
		{api.Field_CgroupsUnified, "memory.max"}, // the same
		{api.Field_Mounts, "/m"},                 // a new compound field
	} {
		if err := l.claim(c.f, c.key); err != nil {
			t.Fatalf("claim %v %q: %v", c.f, c.key, err)
		}
	}
	if err := l.claim(api.Field_MemLimit, ""); err == nil {
		t.Fatal("claim of pa's memory limit by pb succeeded")
	}
	l.undo()
	mustEqual(t, "owners after undo", o.proto(), want)

	fresh := o.logClaims("c1", pb)
	_ = fresh.claim(api.Field_CPUShares, "")
	fresh.undo()
	if o.lookup("c1") != nil {
		t.Error("undo left a table for a container that had none")
	}
}
