// SPDX-License-Identifier: Apache-2.0

package records

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

func TestStoreRecordsACreation(t *testing.T) {
	r := New(4)
	owners := merge.ContainerOwners{
		Simple: map[int32]string{int32(api.Field_MemLimit): "20-b", int32(api.Field_CPUShares): "10-a"},
		Compound: map[int32]*api.CompoundFieldOwners{
			int32(api.Field_Annotations): {Owners: map[string]string{"z": "10-a", "a": "-20-b"}},
			int32(api.Field_OciHooks):    {Owners: map[string]string{"": "10-a,20-b"}},
		},
	}
	before := time.Now()
	n, validatorID := ids([]*validator{{id: "30-v"}, {id: "40-w"}})
	r.Created(&api.Container{Id: "c1", Name: "ctr", PodSandboxId: "pod"}, owners, true, n, validatorID)
	rec, ok := r.Get("c1")
	if !ok {
		t.Fatal("no record of the container created")
	}
	if rec.ID != "c1" || rec.Name != "ctr" || rec.PodID != "pod" || rec.Created.Before(before) {
		t.Errorf("record %+v, want c1 (ctr) of pod, created now", rec)
	}
	want := []FieldOwner{
		{Field: "Annotations", Key: "a", Plugin: "20-b", Removed: true},
		{Field: "Annotations", Key: "z", Plugin: "10-a"},
		{Field: "OciHooks", Plugin: "10-a"},
		{Field: "OciHooks", Plugin: "20-b"},
		{Field: "MemLimit", Plugin: "20-b"},
		{Field: "CPUShares", Plugin: "10-a"},
	}
	if !slices.Equal(rec.Fields, want) {
		t.Errorf("fields %+v,\nwant %+v (in field order, then by key, one per hook owner)", rec.Fields, want)
	}
	if !rec.Validation.DefaultValidator || !slices.Equal(rec.Validation.Validators, []string{"30-v", "40-w"}) {
		t.Errorf("validation %+v, want the default validator, 30-v and 40-w", rec.Validation)
	}
	if rec.Updates == nil || len(rec.Updates) != 0 {
		t.Errorf("updates %v, want none (an empty list: JSON [])", rec.Updates)
	}
	if _, ok := r.Get("c2"); ok {
		t.Error("a record of a container never created")
	}
}

// At the cap, a new record evicts the oldest live one; a removed record
// frees its slot, which the next record takes without evicting.
func TestStoreEvictsTheOldestLive(t *testing.T) {
	r := New(3)
	for _, id := range []string{"c1", "c2", "c3"} {
		create(r, id)
	}
	create(r, "c4")
	if _, ok := r.Get("c1"); ok || r.Len() != 3 || !slices.Equal(live(r), []string{"c2", "c3", "c4"}) {
		t.Fatalf("after a fourth at a cap of 3: live %v (%d), c1 kept %v; want c1 evicted", live(r), r.Len(), ok)
	}
	freed := r.index["c3"]
	r.Removed("c3")
	if _, ok := r.Get("c3"); ok || r.Len() != 2 {
		t.Fatalf("c3 removed, still recorded %v, %d records", ok, r.Len())
	}
	create(r, "c5") // takes c3's slot
	if r.Len() != 3 || !slices.Equal(live(r), []string{"c2", "c4", "c5"}) {
		t.Fatalf("after removing c3 and creating c5: live %v, want c2 c4 c5", live(r))
	}
	if r.index["c5"] != freed {
		t.Errorf("c5 is in slot %d, want c3's freed slot %d", r.index["c5"], freed)
	}
	create(r, "c2") // the same ID again: the old record is void, the new one newest
	if r.Len() != 3 || !slices.Equal(live(r), []string{"c4", "c5", "c2"}) {
		t.Fatalf("after creating c2 again: live %v, want c4 c5 c2", live(r))
	}
	create(r, "c6")
	if !slices.Equal(live(r), []string{"c5", "c2", "c6"}) {
		t.Fatalf("after c6: live %v, want c4 evicted", live(r))
	}
	for _, id := range []string{"c5", "c2", "c6", "unknown"} {
		r.Removed(id)
	}
	if r.Len() != 0 || r.oldest != noSlot || r.newest != noSlot || len(live(r)) != 0 {
		t.Fatalf("all removed: %d records, live %v", r.Len(), live(r))
	}
	free := 0
	for i := r.free; i != noSlot; i = r.slots[i].next {
		free++
	}
	if free != 3 {
		t.Errorf("%d free slots after removing all, want 3", free)
	}
}

// Recording a creation costs no allocation of its own: the slots and their
// validator IDs' arrays are reused.
func TestCreatedAllocatesNothing(t *testing.T) {
	const n = 8
	r := New(n)
	vs := []*validator{{id: "30-v"}, {id: "40-w"}}
	ctrs := make([]*api.Container, 1000)
	for i := range ctrs {
		ctrs[i] = &api.Container{Id: fmt.Sprintf("c%d", i)}
	}
	next := 0
	created := func() {
		r.Created(ctrs[next%len(ctrs)], merge.ContainerOwners{}, false, len(vs), func(i int) string { return vs[i].id })
		next++
	}
	for range 2 * n { // every slot has had its validators' array
		created()
	}
	if allocs := testing.AllocsPerRun(len(ctrs)-2*n-1, created); allocs != 0 {
		t.Errorf("recording a creation allocates %v times, want none", allocs)
	}
}

func TestStoreKeepsTheLastUpdates(t *testing.T) {
	r := New(2)
	create(r, "c1")
	owners := merge.ContainerOwners{Simple: map[int32]string{int32(api.Field_MemLimit): "10-a", int32(api.Field_CPUShares): "20-b"}}
	ownersOf := func(string) merge.ContainerOwners { return owners }
	const updates = maxRecordUpdates + 5
	for range updates {
		r.UpdatesMerged(ByReply, []string{"c1", "unrecorded"}, ownersOf)
	}
	rec, _ := r.Get("c1")
	// Each merge is one update per plugin: 10-a, then 20-b.
	if len(rec.Updates) != maxRecordUpdates {
		t.Fatalf("%d updates kept, want the last %d", len(rec.Updates), maxRecordUpdates)
	}
	for i, u := range rec.Updates {
		plugin, field := "10-a", "MemLimit"
		if i%2 == 1 {
			plugin, field = "20-b", "CPUShares"
		}
		if u.Source != ByReply || u.Plugin != plugin || len(u.Fields) != 1 || u.Fields[0].Field != field || u.Fields[0].Plugin != plugin {
			t.Errorf("update %d: %+v, want %s's %s", i, u, plugin, field)
		}
	}
	if _, ok := r.Get("unrecorded"); ok {
		t.Error("an update recorded a container never created")
	}
	rec.Updates[0].Plugin = "changed"
	if again, _ := r.Get("c1"); again.Updates[0].Plugin == "changed" {
		t.Error("a change to a record reached the store")
	}
}

func TestStoreUnsolicitedUpdates(t *testing.T) {
	r := New(2)
	create(r, "c1")
	create(r, "c2")
	ok1 := &api.ContainerUpdate{ContainerId: "c1"}
	ok1.SetLinuxMemoryLimit(1 << 30)
	bad2 := &api.ContainerUpdate{ContainerId: "c2"}
	bad2.SetLinuxMemoryLimit(1 << 30)
	unknown := &api.ContainerUpdate{ContainerId: "c3"}
	unknown.SetLinuxMemoryLimit(1 << 30)
	r.Unsolicited("20-pusher", []*api.ContainerUpdate{ok1, bad2, unknown}, []*api.ContainerUpdate{bad2})
	for _, tc := range []struct {
		id     string
		failed bool
	}{{"c1", false}, {"c2", true}} {
		rec, _ := r.Get(tc.id)
		if len(rec.Updates) != 1 {
			t.Fatalf("%s: updates %+v, want one", tc.id, rec.Updates)
		}
		u := rec.Updates[0]
		if u.Source != ByPlugin || u.Plugin != "20-pusher" || u.Failed != tc.failed || len(u.Fields) != 1 || u.Fields[0].Field != "MemLimit" {
			t.Errorf("%s: update %+v, want 20-pusher's MemLimit, failed %v", tc.id, u, tc.failed)
		}
	}
	if r.Len() != 2 {
		t.Errorf("%d records, want 2: an update of an unrecorded container records none", r.Len())
	}
}

// With records off (n 0), or no Store at all, nothing is recorded and
// nothing fails.
func TestStoreOff(t *testing.T) {
	for _, r := range []*Store{New(0), nil} {
		if r.On() {
			t.Fatal("a store of 0 records is on")
		}
		create(r, "c1")
		r.UpdatesMerged(ByCreation, []string{"c1"}, func(string) merge.ContainerOwners { return merge.ContainerOwners{} })
		r.Unsolicited("10-a", []*api.ContainerUpdate{{ContainerId: "c1"}}, nil)
		r.Removed("c1")
		if _, ok := r.Get("c1"); ok || r.Len() != 0 {
			t.Errorf("a store that is off recorded c1 (%d records)", r.Len())
		}
	}
}

// A dry-run verdict joins the record of the creation it judged, in the
// order they came, up to a bound; one of a container not recorded is
// dropped, and a new record of the same ID starts with none.
func TestStoreKeepsDryRunVerdicts(t *testing.T) {
	r := New(2)
	create(r, "c1")
	r.DryRun("c1", Verdict{Validator: "50-policy", Rejected: true, Reason: "no"})
	r.DryRun("c1", Verdict{Validator: DefaultValidator})
	r.DryRun("c9", Verdict{Validator: "50-policy"})
	rec, _ := r.Get("c1")
	want := []Verdict{{Validator: "50-policy", Rejected: true, Reason: "no"}, {Validator: DefaultValidator}}
	if !slices.Equal(rec.Validation.DryRun, want) {
		t.Errorf("verdicts %+v, want %+v", rec.Validation.DryRun, want)
	}
	if _, ok := r.Get("c9"); ok {
		t.Error("a verdict recorded a container never created")
	}
	for i := range 2 * maxDryRunVerdicts {
		r.DryRun("c1", Verdict{Validator: fmt.Sprint(i)})
	}
	if rec, _ := r.Get("c1"); len(rec.Validation.DryRun) != maxDryRunVerdicts {
		t.Errorf("%d verdicts kept, want the first %d", len(rec.Validation.DryRun), maxDryRunVerdicts)
	}
	create(r, "c1")
	if rec, _ := r.Get("c1"); rec.Validation.DryRun != nil {
		t.Errorf("the new record of c1 has the old one's verdicts %+v", rec.Validation.DryRun)
	}
}
