// SPDX-License-Identifier: Apache-2.0

// The fields a record lists: an owners table in record order, at most MaxFields of them, keys cut
// to MaxKeyBytes.

package records

import (
	"cmp"
	"container/heap"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// A record lists at most MaxFields fields of a creation and of each
// update, the first in record order (field, then key, then plugin), and
// cuts keys longer than MaxKeyBytes: a plugin may set a hundred thousand
// environment variables, or one annotation with a key of megabytes, and
// each read of the record (the status socket serves them to whoever asks)
// would otherwise cost as much.
const (
	MaxFields   = 512
	MaxKeyBytes = 256
)

// cutMark ends a key cut to MaxKeyBytes.
const cutMark = " [cut]"

// ownedFields lists an owners table as FieldOwners, the first MaxFields in
// record order, and says how many more it left out. Its cost is the
// table's size times log MaxFields, and what it allocates is bounded.
func ownedFields(o merge.ContainerOwners) (fields []FieldOwner, omitted int) {
	var first firstFields
	eachOwned(o, first.add)
	return first.list()
}

// eachOwned calls fn with each entry of an owners table, in no order. An
// owner list of OCI hooks ("a,b") is one entry per plugin.
func eachOwned(o merge.ContainerOwners, fn func(FieldOwner)) {
	for f, owner := range o.Simple {
		eachOwner(api.Field(f), "", owner, fn)
	}
	for f, c := range o.Compound {
		for key, owner := range c.GetOwners() {
			eachOwner(api.Field(f), key, owner, fn)
		}
	}
}

func eachOwner(f api.Field, key, owner string, fn func(FieldOwner)) {
	removed := false
	if len(owner) > 0 && owner[0] == '-' {
		removed, owner = true, owner[1:]
	}
	for plugin := range strings.SplitSeq(owner, ",") {
		fn(FieldOwner{Field: f.String(), Key: key, Plugin: plugin, Removed: removed})
	}
}

// updatesByPlugin splits a container's owners table by plugin: one Update
// per plugin, in plugin order, each listing its fields.
func updatesByPlugin(o merge.ContainerOwners) []Update {
	byPlugin := map[string]*firstFields{}
	eachOwned(o, func(fo FieldOwner) {
		first := byPlugin[fo.Plugin]
		if first == nil {
			first = &firstFields{}
			byPlugin[fo.Plugin] = first
		}
		first.add(fo)
	})
	plugins := slices.Sorted(maps.Keys(byPlugin))
	out := make([]Update, len(plugins))
	for i, plugin := range plugins {
		out[i].Plugin = plugin
		out[i].Fields, out[i].FieldsOmitted = byPlugin[plugin].list()
	}
	return out
}

func compareFields(a, b FieldOwner) int {
	return cmp.Or(cmp.Compare(api.Field_value[a.Field], api.Field_value[b.Field]), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Plugin, b.Plugin))
}

// firstFields keeps the first MaxFields FieldOwners it is given in record
// order: a heap with the last of them on top, which a newcomer before it
// replaces.
type firstFields struct {
	kept    []FieldOwner
	omitted int
}

func (h *firstFields) Len() int           { return len(h.kept) }
func (h *firstFields) Less(i, j int) bool { return compareFields(h.kept[i], h.kept[j]) > 0 }
func (h *firstFields) Swap(i, j int)      { h.kept[i], h.kept[j] = h.kept[j], h.kept[i] }
func (h *firstFields) Push(x any)         { h.kept = append(h.kept, x.(FieldOwner)) }
func (h *firstFields) Pop() any {
	last := h.kept[len(h.kept)-1]
	h.kept = h.kept[:len(h.kept)-1]
	return last
}

func (h *firstFields) add(fo FieldOwner) {
	if len(h.kept) < MaxFields {
		heap.Push(h, fo)
		return
	}
	h.omitted++
	if compareFields(fo, h.kept[0]) < 0 { // before the last kept: it takes its place
		h.kept[0] = fo
		heap.Fix(h, 0)
	}
}

// list is what h kept, in record order, keys cut to MaxKeyBytes; never
// nil.
func (h *firstFields) list() ([]FieldOwner, int) {
	fields := slices.SortedFunc(slices.Values(h.kept), compareFields)
	for i := range fields {
		fields[i].Key = cutKey(fields[i].Key)
	}
	if fields == nil {
		fields = []FieldOwner{}
	}
	return fields, h.omitted
}

// cutKey cuts a key longer than MaxKeyBytes at a character's start, and
// marks it cut.
func cutKey(key string) string {
	if len(key) <= MaxKeyBytes {
		return key
	}
	n := MaxKeyBytes
	for n > 0 && !utf8.RuneStart(key[n]) {
		n--
	}
	return key[:n] + cutMark
}
