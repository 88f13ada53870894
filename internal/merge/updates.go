// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"fmt"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// updates is the merged list of updates to containers: one
// entry per container ID, in the order the IDs were first seen. Ownership is
// tracked per target container in the same table as adjustments.
type updates struct {
	order   []string
	entries map[string]*updateEntry
	// unsettled are the entries with hugepage limits waiting for settle.
	// It is empty outside merge, so clone, list and get need not look.
	unsettled []*updateEntry
}

type updateEntry struct {
	update *api.ContainerUpdate
	// touched is false only for UpdateContainer's seed entry until a plugin
	// contributes to it; ignore_failure is the AND over contributions.
	touched bool
	// hugepages are limits merged during the current merge call and not yet
	// in update (see settle). Their page sizes are distinct.
	hugepages []*api.HugepageLimit
}

func (us *updates) put(id string, e *updateEntry) {
	if us.entries == nil {
		us.entries = map[string]*updateEntry{}
	}
	us.entries[id] = e
}

// seed starts the entry of id from res without anyone owning it: the
// resources an UpdateContainer request asks for. The seed is not listed.
func (us *updates) seed(id string, res *api.LinuxResources) {
	us.put(id, &updateEntry{update: &api.ContainerUpdate{
		ContainerId: id,
		Linux:       &api.LinuxContainerUpdate{Resources: cloneMsg(res)},
	}})
}

func (us *updates) clone() *updates {
	c := &updates{order: append([]string(nil), us.order...), entries: make(map[string]*updateEntry, len(us.entries))}
	for id, e := range us.entries {
		c.entries[id] = &updateEntry{update: cloneMsg(e.update), touched: e.touched}
	}
	return c
}

// list returns copies of the touched entries in order of first sight.
func (us *updates) list() []*api.ContainerUpdate {
	var out []*api.ContainerUpdate
	for _, id := range us.order {
		out = append(out, cloneMsg(us.entries[id].update))
	}
	return out
}

// get returns a copy of the entry of id, or nil.
func (us *updates) get(id string) *api.ContainerUpdate {
	if e := us.entries[id]; e != nil {
		return cloneMsg(e.update)
	}
	return nil
}

// merge merges one plugin's updates. An update that conflicts while allowing
// failure is dropped and returned in dropped; any other error fails the
// reply.
//
// Deliberate deviation: a dropped update leaves nothing behind. The reference
// discards its resource changes but keeps the ownership claims made before
// the conflicting one, which then block other plugins for no effect.
func (us *updates) merge(o *owners, plugin string, in []*api.ContainerUpdate) (dropped []error, err error) {
	for _, u := range in {
		if u == nil {
			return nil, invalid(plugin, "nil container update")
		}
		if u.ContainerId == "" {
			return nil, invalid(plugin, "container update without a container ID")
		}
		if err := limits.Resources(u.GetLinux().GetResources()); err != nil {
			return nil, outOfRange(plugin, fmt.Errorf("update of container %q: %w", u.ContainerId, err))
		}
	}
	defer us.settle()
	for _, u := range in {
		err := us.mergeOne(o, plugin, u)
		switch {
		case err == nil:
		case u.IgnoreFailure && errors.Is(err, ErrConflict):
			dropped = append(dropped, fmt.Errorf("plugin %q: update ignored: %w", plugin, err))
		default:
			return nil, err
		}
	}
	return dropped, nil
}

// mergeOne merges u into its entry if every claim it makes succeeds, and
// leaves no trace otherwise. Cgroup device rules in updates are not merged.
//
// Its cost is that of u alone, however big the entry has grown: a reply may
// carry thousands of updates of one container, and the runtime holds its
// lock while the reply is merged.
func (us *updates) mergeOne(o *owners, plugin string, u *api.ContainerUpdate) error {
	id := u.ContainerId
	delta, err := claimUpdate(o, plugin, id, u.GetLinux().GetResources())
	if err == nil {
		err = us.commit(id, u.IgnoreFailure, delta)
	}
	if err != nil {
		return fmt.Errorf("update of container %q: %w", id, err)
	}
	return nil
}

// claimUpdate claims in container id what src sets, and returns it merged
// into empty resources. On error no claim is left behind. Merging into empty
// resources rather than a copy of the entry is what lets a failed update be
// undone without copying the entry.
func claimUpdate(o *owners, plugin, id string, src *api.LinuxResources) (*api.LinuxResources, error) {
	log := o.logClaims(id, plugin)
	cl := claims{plugin: plugin, claim: log.claim, clear: func(api.Field, string) {}}
	delta := &api.LinuxResources{}
	if err := cl.mergeResources(delta, src, false); err != nil {
		log.undo()
		return nil, err
	}
	return delta, nil
}

// commit merges a claimed update into the entry of id, in place. Its
// hugepage limits wait for settle; everything else is replayed at once.
// The replay cannot fail: delta's keys passed the same checks when they were
// claimed. Were it to fail anyway, the whole reply fails, and Update and
// Stop restore their state from before the reply.
func (us *updates) commit(id string, ignoreFailure bool, delta *api.LinuxResources) error {
	e := us.entry(id)
	if e.touched {
		e.update.IgnoreFailure = e.update.IgnoreFailure && ignoreFailure
	} else {
		e.touched = true
		e.update.IgnoreFailure = ignoreFailure
		us.order = append(us.order, id)
	}
	if len(delta.HugepageLimits) > 0 {
		if len(e.hugepages) == 0 {
			us.unsettled = append(us.unsettled, e)
		}
		e.hugepages = append(e.hugepages, delta.HugepageLimits...)
		delta.HugepageLimits = nil
	}
	replay := claims{claim: noClaim, clear: func(api.Field, string) {}}
	return replay.mergeResources(e.resources(), delta, false)
}

// settle puts the hugepage limits merged by a reply into their entries'
// resources, in one pass over each entry's list. Rewriting the list for each
// update instead made a reply with a new page size in each update quadratic.
// One pass gives the same list as one per update did, since every page size
// merged was claimed and so is merged only once.
func (us *updates) settle() {
	for _, e := range us.unsettled {
		res := e.resources()
		res.HugepageLimits = rewrite(res.HugepageLimits, hugepageKey, nil, e.hugepages)
		e.hugepages = nil
	}
	us.unsettled = nil
}

// entry returns the entry of id, made on first use; it is listed once a
// plugin touches it (commit).
func (us *updates) entry(id string) *updateEntry {
	e := us.entries[id]
	if e == nil {
		e = &updateEntry{update: &api.ContainerUpdate{ContainerId: id}}
		us.put(id, e)
	}
	return e
}

// resources returns the entry's resources, made empty on first use: a seed
// from a request without resources has none.
func (e *updateEntry) resources() *api.LinuxResources {
	if e.update.Linux == nil {
		e.update.Linux = &api.LinuxContainerUpdate{}
	}
	if e.update.Linux.Resources == nil {
		e.update.Linux.Resources = &api.LinuxResources{}
	}
	return e.update.Linux.Resources
}

// updateState is what update and eviction lists change: the whole state of
// Update and Stop, and part of Create's.
type updateState struct {
	// owners and updates are values: their first use allocates only what
	// a reply claims or updates.
	owners  owners
	updates updates
	evictions
	dropped []error
}

func newUpdateState() updateState { return updateState{} }

func (s *updateState) clone() updateState {
	return updateState{
		owners:    *s.owners.clone(),
		updates:   *s.updates.clone(),
		evictions: s.evictions.clone(),
		dropped:   append([]error(nil), s.dropped...),
	}
}

// apply merges a plugin's updates, then its evictions (evict.go). On error
// the caller restores a clone.
func (s *updateState) apply(plugin string, upd []*api.ContainerUpdate, evict []*api.ContainerEviction) error {
	dropped, err := s.updates.merge(&s.owners, plugin, upd)
	if err != nil {
		return err
	}
	s.dropped = append(s.dropped, dropped...)
	return s.evictions.merge(plugin, evict)
}
