// SPDX-License-Identifier: Apache-2.0

// ContainerRecord: which plugin changed what in a container, kept for a bounded number of containers.

package adaptation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// MaxContainerRecords bounds WithContainerRecords: each record kept costs
// a few hundred bytes and the owners' tables.
const MaxContainerRecords = 1 << 16

// maxRecordUpdates bounds the updates one record keeps: the last ones.
const maxRecordUpdates = 32

// WithContainerRecords keeps, for the newest n live containers, the record
// of which plugin set which field and which validators approved, and the
// updates plugins made since (see Adaptation.ContainerRecord). A record
// goes when its container is removed; when n containers are recorded, the
// oldest live one's record makes room for a new one. 0, the default, keeps none; n must be within 0 and
// MaxContainerRecords.
func WithContainerRecords(n int) Option {
	return func(o *options) error {
		if n < 0 || n > MaxContainerRecords {
			return fmt.Errorf("nrikit: container_records must be within 0 and %d, got %d", MaxContainerRecords, n)
		}
		o.containerRecords = n
		return nil
	}
}

// ContainerRecord says who changed a live container: which plugin set which
// field at its creation, which validators approved, and the updates plugins
// made since.
type ContainerRecord struct {
	ID      string    `json:"id"`
	Name    string    `json:"name,omitempty"`
	PodID   string    `json:"pod_id,omitempty"`
	Created time.Time `json:"created"` // when CreateContainer returned it
	// Fields are the fields the plugins set or removed at its creation, in
	// field order, then by key.
	Fields     []FieldOwner     `json:"fields"`
	Validation ValidationRecord `json:"validation"`
	// Updates are the updates plugins made to it since, oldest first; the
	// last 32 are kept.
	Updates []UpdateRecord `json:"updates"`
}

// FieldOwner is one field, or one entry of a map or list field, and the
// plugin that set it.
type FieldOwner struct {
	// Field names the field as api.Field does: "Annotations", "Env",
	// "MemLimit", ...
	Field string `json:"field"`
	// Key is the entry of a map or list field: an annotation's or
	// environment variable's name, a mount's destination, a device's path;
	// "" for a simple field.
	Key    string `json:"key,omitempty"`
	Plugin string `json:"plugin"`
	// Removed: the plugin removed the value rather than set it.
	Removed bool `json:"removed,omitempty"`
}

// ValidationRecord is what approved a creation. Creations a validator
// rejected fail and are not recorded.
type ValidationRecord struct {
	DefaultValidator bool `json:"default_validator"` // the default validator approved it
	// Validators are the validator plugins that approved it, in dispatch
	// order.
	Validators []string `json:"validators"`
}

// Sources of an UpdateRecord.
const (
	UpdateByReply = "UpdateContainer" // a plugin's reply to UpdateContainer
	// UpdateByCreation: a plugin's reply to the CreateContainer of another
	// container.
	UpdateByCreation = "CreateContainer"
	UpdateByPlugin   = "UpdateContainers" // an update a plugin sent on its own (unsolicited)
	// UpdateByStop: a plugin's reply to the StopContainer of another
	// container.
	UpdateByStop = "StopContainer"
)

// UpdateRecord is one plugin's update of a recorded container.
type UpdateRecord struct {
	Time   time.Time    `json:"time"`
	Source string       `json:"source"` // UpdateByReply, UpdateByCreation, UpdateByStop or UpdateByPlugin
	Plugin string       `json:"plugin"`
	Fields []FieldOwner `json:"fields"`
	// Failed: the runtime reported the unsolicited update failed.
	Failed bool `json:"failed,omitempty"`
}

// ContainerRecord returns the record of the live container id, if records
// are on (WithContainerRecords) and it was created since, and not yet
// removed or evicted by newer ones.
func (a *Adaptation) ContainerRecord(id string) (ContainerRecord, bool) {
	return a.records.get(id)
}

// containerRecords keeps the records of the newest live containers, at most
// len(slots). The slots are allocated at New and linked by index, so that
// recording a creation costs no allocation of its own: the live records
// form a list from the oldest to the newest, the free slots a list of
// their own. A new record takes a free slot; only when none is free does
// it evict the oldest live record.
type containerRecords struct {
	mu             sync.Mutex
	slots          []recordSlot
	index          map[string]int // container ID to its slot
	oldest, newest int            // the live list's ends; noSlot when empty
	free           int            // the free list's head; noSlot when full
}

// noSlot ends a list of slots.
const noSlot = -1

// recordSlot is one record as kept: the merger's tables, turned into a
// ContainerRecord only when asked for.
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
	updates          []UpdateRecord
}

func (r *containerRecords) init(n int) {
	r.oldest, r.newest, r.free = noSlot, noSlot, noSlot
	if n > 0 {
		r.slots = make([]recordSlot, n)
		r.index = make(map[string]int, n)
		for i := n - 1; i >= 0; i-- {
			r.pushFreeLocked(i)
		}
	}
}

func (r *containerRecords) on() bool { return r.slots != nil }

func (r *containerRecords) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.index)
}

// created records a creation the validators approved; validators are the
// validator plugins consulted.
func (r *containerRecords) created(ctr *api.Container, owners merge.ContainerOwners, validators []*plugin, byDefault bool) {
	if !r.on() {
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
	for _, p := range validators {
		ids = append(ids, p.id)
	}
	*s = recordSlot{
		id: ctr.GetId(), name: ctr.GetName(), pod: ctr.GetPodSandboxId(), created: now,
		owners: owners, validators: ids, defaultValidator: byDefault,
	}
	r.appendLiveLocked(i)
	r.index[ctr.GetId()] = i
}

// appendLiveLocked links slot i as the newest live record.
func (r *containerRecords) appendLiveLocked(i int) {
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
func (r *containerRecords) releaseLocked(i int) {
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

func (r *containerRecords) pushFreeLocked(i int) {
	r.slots[i].next = r.free
	r.free = i
}

// removed forgets container id's record.
func (r *containerRecords) removed(id string) {
	if !r.on() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.index[id]; ok {
		r.releaseLocked(i)
	}
}

func (r *containerRecords) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.index[id]
	return ok
}

// updated adds one plugin's update of container id, if recorded.
func (r *containerRecords) updated(id string, u UpdateRecord) {
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

// updatesMerged records the updates of the containers ids that replies
// merged, with their owners, from source: one UpdateRecord per plugin and
// container.
func (r *containerRecords) updatesMerged(source string, ids []string, ownersOf func(string) merge.ContainerOwners) {
	if !r.on() {
		return
	}
	now := time.Now()
	for _, id := range ids {
		if !r.has(id) {
			continue
		}
		byPlugin := map[string][]FieldOwner{}
		var order []string
		for _, f := range ownedFields(ownersOf(id)) {
			if _, ok := byPlugin[f.Plugin]; !ok {
				order = append(order, f.Plugin)
			}
			byPlugin[f.Plugin] = append(byPlugin[f.Plugin], f)
		}
		slices.Sort(order)
		for _, plugin := range order {
			r.updated(id, UpdateRecord{Time: now, Source: source, Plugin: plugin, Fields: byPlugin[plugin]})
		}
	}
}

// unsolicited records a plugin's unsolicited updates, and those of them
// the runtime reported failed.
func (r *containerRecords) unsolicited(plugin string, updates, failed []*api.ContainerUpdate) {
	if !r.on() {
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
		r.updated(u.GetContainerId(), UpdateRecord{
			Time: now, Source: UpdateByPlugin, Plugin: plugin, Fields: ownedFields(owners), Failed: failedFor(failed, u.GetContainerId()),
		})
	}
}

// get turns container id's slot into its record.
func (r *containerRecords) get(id string) (ContainerRecord, bool) {
	if !r.on() {
		return ContainerRecord{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.index[id]
	if !ok {
		return ContainerRecord{}, false
	}
	s := &r.slots[i]
	rec := ContainerRecord{
		ID: s.id, Name: s.name, PodID: s.pod, Created: s.created,
		Fields:     ownedFields(s.owners),
		Validation: ValidationRecord{DefaultValidator: s.defaultValidator, Validators: append([]string{}, s.validators...)},
		Updates:    slices.Clone(s.updates),
	}
	if rec.Updates == nil {
		rec.Updates = []UpdateRecord{}
	}
	return rec, true
}

// ownedFields lists an owners table as FieldOwners, in field order, then by
// key. An owner list of OCI hooks ("a,b") is one entry per plugin.
func ownedFields(o merge.ContainerOwners) []FieldOwner {
	out := []FieldOwner{}
	for f, owner := range o.Simple {
		out = appendOwners(out, api.Field(f), "", owner)
	}
	for f, c := range o.Compound {
		for key, owner := range c.GetOwners() {
			out = appendOwners(out, api.Field(f), key, owner)
		}
	}
	slices.SortFunc(out, func(a, b FieldOwner) int {
		return cmp.Or(cmp.Compare(api.Field_value[a.Field], api.Field_value[b.Field]), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Plugin, b.Plugin))
	})
	return out
}

func appendOwners(out []FieldOwner, f api.Field, key, owner string) []FieldOwner {
	removed := false
	if len(owner) > 0 && owner[0] == '-' {
		removed, owner = true, owner[1:]
	}
	for _, plugin := range strings.Split(owner, ",") {
		out = append(out, FieldOwner{Field: f.String(), Key: key, Plugin: plugin, Removed: removed})
	}
	return out
}

// failedFor tells whether the runtime reported an update of container id
// failed.
func failedFor(failed []*api.ContainerUpdate, id string) bool {
	return slices.ContainsFunc(failed, func(u *api.ContainerUpdate) bool { return u.GetContainerId() == id })
}
