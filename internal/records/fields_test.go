// SPDX-License-Identifier: Apache-2.0

package records

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// manyEnv is an owners table of n environment variables set by plugin,
// V00000 to V<n-1>, and an annotation with a key of keyBytes bytes.
func manyEnv(n, keyBytes int, plugin string) merge.ContainerOwners {
	env := &api.CompoundFieldOwners{Owners: map[string]string{}}
	for i := range n {
		env.Owners[fmt.Sprintf("V%05d", i)] = plugin
	}
	long := strings.Repeat("é", keyBytes/2) // two bytes each: the cut must fall between them
	return merge.ContainerOwners{Compound: map[int32]*api.CompoundFieldOwners{
		int32(api.Field_Env):         env,
		int32(api.Field_Annotations): {Owners: map[string]string{long: plugin}},
	}}
}

// TestRecordListsTheFirstFields: a record lists the first MaxFields fields
// in record order, counts those it left out, and cuts a long key on a
// character's boundary, marking it; an update's fields alike.
func TestRecordListsTheFirstFields(t *testing.T) {
	r := New(2)
	owners := manyEnv(2000, 3*MaxKeyBytes+1, "10-a")
	r.Created(&api.Container{Id: "c1"}, owners, false, 0, nil)
	rec, _ := r.Get("c1")
	if len(rec.Fields) != MaxFields || rec.FieldsOmitted != 2001-MaxFields {
		t.Fatalf("%d fields listed, %d omitted; want %d and %d", len(rec.Fields), rec.FieldsOmitted, MaxFields, 2001-MaxFields)
	}
	key := rec.Fields[0].Key
	if rec.Fields[0].Field != "Annotations" || !strings.HasSuffix(key, cutMark) || len(key) > MaxKeyBytes+len(cutMark) ||
		!strings.HasPrefix(key, "éé") || strings.ToValidUTF8(key, "?") != key {
		t.Errorf("first field %q: want the annotation, its key cut to %d bytes of whole characters and marked", key[:min(len(key), 20)], MaxKeyBytes)
	}
	for i, f := range rec.Fields[1:] {
		if want := fmt.Sprintf("V%05d", i); f.Field != "Env" || f.Key != want {
			t.Fatalf("field %d: %+v, want Env %s (the first in order)", i+1, f, want)
		}
	}

	r.UpdatesMerged(ByReply, []string{"c1"}, func(string) merge.ContainerOwners { return owners })
	rec, _ = r.Get("c1")
	if u := rec.Updates[0]; len(u.Fields) != MaxFields || u.FieldsOmitted != 2001-MaxFields || u.Plugin != "10-a" {
		t.Errorf("update: %d fields listed, %d omitted by %s; want %d and %d by 10-a", len(u.Fields), u.FieldsOmitted, u.Plugin, MaxFields, 2001-MaxFields)
	}
}

// TestGetListsOutsideTheLock: while a record's fields are listed, creations
// are recorded: Get holds the store's lock only to copy the slot. Reading
// a big record through the status socket, 16 clients at once, stalled
// unrelated creations for seconds when the listing held it.
func TestGetListsOutsideTheLock(t *testing.T) {
	r := New(4)
	r.Created(&api.Container{Id: "big"}, manyEnv(2000, 8, "10-a"), false, 0, nil)
	recorded := make(chan struct{})
	testHookListing = func() {
		testHookListing = nil // once
		go func() {
			create(r, "other")
			close(recorded)
		}()
		select {
		case <-recorded:
		case <-time.After(10 * time.Second):
			t.Error("a creation waited for a record's listing")
		}
	}
	defer func() { testHookListing = nil }()
	if rec, ok := r.Get("big"); !ok || len(rec.Fields) != MaxFields {
		t.Fatalf("record of big: %v, %d fields", ok, len(rec.Fields))
	}
	if _, ok := r.Get("other"); !ok {
		t.Error("the creation recorded during the listing is missing")
	}
}

// TestUpdatesByPluginShareHooks: an OCI hooks entry owned by two plugins
// is in each one's update.
func TestUpdatesByPluginShareHooks(t *testing.T) {
	got := updatesByPlugin(merge.ContainerOwners{
		Simple:   map[int32]string{int32(api.Field_MemLimit): "20-b"},
		Compound: map[int32]*api.CompoundFieldOwners{int32(api.Field_OciHooks): {Owners: map[string]string{"": "10-a,20-b"}}},
	})
	var plugins []string
	for _, u := range got {
		plugins = append(plugins, fmt.Sprintf("%s:%d", u.Plugin, len(u.Fields)))
	}
	if !slices.Equal(plugins, []string{"10-a:1", "20-b:2"}) {
		t.Errorf("updates %v, want 10-a with its hook, 20-b with its hook and memory limit", plugins)
	}
}
