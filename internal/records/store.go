// SPDX-License-Identifier: Apache-2.0

// Store and Record: which plugin changed what in a container, kept for a bounded number of containers.

package records

import (
	"slices"
	"sync"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// Record says who changed a live container: which plugin set which field
// at its creation, which validators approved, and the updates plugins made
// since.
type Record struct {
	ID      string
	Name    string
	PodID   string
	Created time.Time // when its creation was recorded
	// Fields are the fields the plugins set or removed at its creation, in
	// field order, then by key: the first MaxFields. Never nil.
	Fields []FieldOwner
	// FieldsOmitted counts the fields beyond MaxFields left out.
	FieldsOmitted int
	Validation    Validation
	// Updates are the updates plugins made to it since, oldest first; the
	// last 32 are kept. Never nil.
	Updates []Update
}

// FieldOwner is one field, or one entry of a map or list field, and the
// plugin that set it.
type FieldOwner struct {
	// Field names the field as api.Field does: "Annotations", "Env",
	// "MemLimit", ...
	Field string
	// Key is the entry of a map or list field: an annotation's or
	// environment variable's name, a mount's destination, a device's path;
	// "" for a simple field.
	Key    string
	Plugin string
	// Removed: the plugin removed the value rather than set it.
	Removed bool
}

// Validation is what approved a creation.
type Validation struct {
	DefaultValidator bool // the default validator approved it
	// Validators are the IDs of the validator plugins that approved it, in
	// dispatch order. Never nil.
	Validators []string
	// DryRun are the verdicts of the validators run dry, as they came; nil
	// if none.
	DryRun []Verdict
}

// Source says what made an Update; its values are the event names the
// public UpdateRecord.Source reports.
type Source string

// Sources of an Update.
const (
	ByReply = Source("UpdateContainer") // a plugin's reply to UpdateContainer
	// ByCreation: a plugin's reply to the CreateContainer of another
	// container.
	ByCreation = Source("CreateContainer")
	ByPlugin   = Source("UpdateContainers") // an update a plugin sent on its own (unsolicited)
	// ByStop: a plugin's reply to the StopContainer of another container.
	ByStop = Source("StopContainer")
)

// Update is one plugin's update of a recorded container.
type Update struct {
	Time   time.Time
	Source Source
	Plugin string
	// Fields are the fields it set, the first MaxFields, as Record's;
	// FieldsOmitted counts those left out.
	Fields        []FieldOwner
	FieldsOmitted int
	// Failed: the runtime reported the unsolicited update failed.
	Failed bool
}

// maxRecordUpdates bounds the updates one record keeps: the last ones.
const maxRecordUpdates = 32

// Store keeps the records of the newest live containers, at most
// len(slots). The slots are allocated at New and linked by index, so that
// recording a creation costs no allocation of its own: the live records
// form a list from the oldest to the newest, the free slots a list of
// their own. A new record takes a free slot; only when none is free does
// it evict the oldest live record.
type Store struct {
	mu             sync.Mutex
	slots          []recordSlot
	index          map[string]int // container ID to its slot
	oldest, newest int            // the live list's ends; noSlot when empty
	free           int            // the free list's head; noSlot when full
}

// noSlot ends a list of slots.
const noSlot = -1

// recordSlot is one record as kept: the merger's tables, turned into a
// Record only when asked for.
type recordSlot struct {
	prev, next    int // the neighbours in the live list (older, newer), or next in the free list
	id, name, pod string
	created       time.Time
	owners        merge.ContainerOwners
	// validators are the IDs of the validator plugins that approved it, so
	// that a record pins no plugin instance. Its array is kept when the
	// slot is freed, for the slot's next record.
	validators       []string
	defaultValidator bool
	updates          []Update
	dryRun           []Verdict
}

// New returns a Store that keeps the records of the newest n live
// containers; with n 0, it keeps none (On is false).
func New(n int) *Store {
	r := &Store{oldest: noSlot, newest: noSlot, free: noSlot}
	if n > 0 {
		r.slots = make([]recordSlot, n)
		r.index = make(map[string]int, n)
		// Room for a few validators' ids in every slot, in one array, so
		// that a slot's first record allocates none either.
		ids := make([]string, n*validatorsPerSlot)
		for i := n - 1; i >= 0; i-- {
			r.slots[i].validators = ids[i*validatorsPerSlot : i*validatorsPerSlot : (i+1)*validatorsPerSlot]
			r.pushFreeLocked(i)
		}
	}
	return r
}

// validatorsPerSlot is how many validator plugins' ids a slot holds without
// allocating; a creation with more allocates that slot a bigger array once.
const validatorsPerSlot = 4

// On tells whether records are kept: what a creation's caller checks
// before it computes what to record.
func (r *Store) On() bool { return r != nil && r.slots != nil }

// Len counts the records kept.
func (r *Store) Len() int {
	if !r.On() {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.index)
}

// Created records a creation the validators approved: byDefault when the
// default validator approved, and the validators validator plugins
// consulted, validatorID(i) naming the i-th in dispatch order. validatorID
// is called before Created returns and not kept, so that a closure the
// caller passes costs no allocation.
func (r *Store) Created(ctr *api.Container, owners merge.ContainerOwners, byDefault bool, validators int, validatorID func(i int) string) {
	if !r.On() {
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.index[ctr.GetId()]; ok {
		r.releaseLocked(i) // the same ID created again: the old record is void
	}
	if r.free == noSlot {
		r.releaseLocked(r.oldest) // full: the oldest live record makes room
	}
	i := r.free
	s := &r.slots[i]
	r.free = s.next
	ids := s.validators[:0]
	for v := range validators {
		ids = append(ids, validatorID(v))
	}
	*s = recordSlot{
		id: ctr.GetId(), name: ctr.GetName(), pod: ctr.GetPodSandboxId(), created: now,
		owners: owners, validators: ids, defaultValidator: byDefault,
	}
	r.appendLiveLocked(i)
	r.index[ctr.GetId()] = i
}

// appendLiveLocked links slot i as the newest live record.
func (r *Store) appendLiveLocked(i int) {
	s := &r.slots[i]
	s.prev, s.next = r.newest, noSlot
	if r.newest == noSlot {
		r.oldest = i
	} else {
		r.slots[r.newest].next = i
	}
	r.newest = i
}

// releaseLocked unlinks live slot i, forgets its record and frees it.
func (r *Store) releaseLocked(i int) {
	s := &r.slots[i]
	if s.prev == noSlot {
		r.oldest = s.next
	} else {
		r.slots[s.prev].next = s.next
	}
	if s.next == noSlot {
		r.newest = s.prev
	} else {
		r.slots[s.next].prev = s.prev
	}
	delete(r.index, s.id)
	clear(s.validators)
	*s = recordSlot{validators: s.validators[:0]}
	r.pushFreeLocked(i)
}

func (r *Store) pushFreeLocked(i int) {
	r.slots[i].next = r.free
	r.free = i
}

// Removed forgets container id's record.
func (r *Store) Removed(id string) {
	if !r.On() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.index[id]; ok {
		r.releaseLocked(i)
	}
}

func (r *Store) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.index[id]
	return ok
}

// updated adds one plugin's update of container id, if recorded.
func (r *Store) updated(id string, u Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.index[id]
	if !ok {
		return
	}
	s := &r.slots[i]
	if len(s.updates) == maxRecordUpdates {
		s.updates = slices.Delete(s.updates, 0, 1)
	}
	s.updates = append(s.updates, u)
}

// UpdatesMerged records the updates of the containers ids that replies
// merged, with their owners, from source: one Update per plugin and
// container.
func (r *Store) UpdatesMerged(source Source, ids []string, ownersOf func(string) merge.ContainerOwners) {
	if !r.On() {
		return
	}
	now := time.Now()
	for _, id := range ids {
		if !r.has(id) {
			continue
		}
		for _, u := range updatesByPlugin(ownersOf(id)) {
			u.Time, u.Source = now, source
			r.updated(id, u)
		}
	}
}

// Unsolicited records a plugin's unsolicited updates, and those of them
// the runtime reported failed.
func (r *Store) Unsolicited(plugin string, updates, failed []*api.ContainerUpdate) {
	if !r.On() {
		return
	}
	now := time.Now()
	for _, u := range updates {
		if !r.has(u.GetContainerId()) {
			continue // merged only to name fields, for a record
		}
		owners, err := merge.UpdateOwners(plugin, u)
		if err != nil {
			continue // not mergeable: no field to name
		}
		fields, omitted := ownedFields(owners)
		r.updated(u.GetContainerId(), Update{
			Time: now, Source: ByPlugin, Plugin: plugin, Fields: fields, FieldsOmitted: omitted,
			Failed: failedFor(failed, u.GetContainerId()),
		})
	}
}

// Get turns container id's slot into its record. Only copying the slot
// holds the lock that a creation's recording takes; the fields are listed
// after, from the owners tables, which no one changes once recorded.
func (r *Store) Get(id string) (Record, bool) {
	if !r.On() {
		return Record{}, false
	}
	rec, owners, ok := r.copyOf(id)
	if !ok {
		return Record{}, false
	}
	if testHookListing != nil {
		testHookListing()
	}
	rec.Fields, rec.FieldsOmitted = ownedFields(owners)
	return rec, true
}

// testHookListing, when set by a test, runs in Get between the copy of the
// slot and the listing of its fields.
var testHookListing func()

// copyOf copies container id's slot, but for its fields: its owners tables
// are returned as they are.
func (r *Store) copyOf(id string) (Record, merge.ContainerOwners, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.index[id]
	if !ok {
		return Record{}, merge.ContainerOwners{}, false
	}
	s := &r.slots[i]
	rec := Record{
		ID: s.id, Name: s.name, PodID: s.pod, Created: s.created,
		Validation: Validation{DefaultValidator: s.defaultValidator, Validators: append([]string{}, s.validators...), DryRun: slices.Clone(s.dryRun)},
		Updates:    slices.Clone(s.updates),
	}
	if rec.Updates == nil {
		rec.Updates = []Update{}
	}
	return rec, s.owners, true
}

// failedFor tells whether the runtime reported an update of container id
// failed.
func failedFor(failed []*api.ContainerUpdate, id string) bool {
	return slices.ContainsFunc(failed, func(u *api.ContainerUpdate) bool { return u.GetContainerId() == id })
}
