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
}

type updateEntry struct {
	update *api.ContainerUpdate
	// touched is false only for UpdateContainer's seed entry until a plugin
	// contributes to it; ignore_failure is the AND over contributions.
	touched bool
}

// newUpdates returns an empty list; its map is made on first use.
func newUpdates() *updates { return &updates{} }

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

// mergeOne merges u onto a copy of its entry and commits the copy only if
// every claim succeeded. Cgroup device rules in updates are not merged.
func (us *updates) mergeOne(o *owners, plugin string, u *api.ContainerUpdate) error {
	id := u.ContainerId
	e := us.entries[id]
	res := &api.LinuxResources{}
	if e != nil && e.update.GetLinux().GetResources() != nil {
		res = cloneMsg(e.update.Linux.Resources)
	}
	saved := o.snapshot(id)
	cl := claims{plugin: plugin, claim: o.claimer(id, plugin), clear: func(api.Field, string) {}}
	if err := cl.mergeResources(res, u.GetLinux().GetResources(), false); err != nil {
		o.restore(id, saved)
		return fmt.Errorf("update of container %q: %w", id, err)
	}
	if e == nil {
		e = &updateEntry{update: &api.ContainerUpdate{ContainerId: id}}
		us.put(id, e)
	}
	if e.touched {
		e.update.IgnoreFailure = e.update.IgnoreFailure && u.IgnoreFailure
	} else {
		e.touched = true
		e.update.IgnoreFailure = u.IgnoreFailure
		us.order = append(us.order, id)
	}
	e.update.Linux = &api.LinuxContainerUpdate{Resources: res}
	return nil
}

// updateState is what update and eviction lists change: the whole state of
// Update and Stop, and part of Create's.
type updateState struct {
	owners  *owners
	updates *updates
	evict   []*api.ContainerEviction
	dropped []error
}

func newUpdateState() updateState {
	return updateState{owners: newOwners(), updates: newUpdates()}
}

func (s *updateState) clone() updateState {
	return updateState{
		owners:  s.owners.clone(),
		updates: s.updates.clone(),
		evict:   cloneList(s.evict),
		dropped: append([]error(nil), s.dropped...),
	}
}

// apply merges a plugin's updates, then appends its evictions, which are
// only passed on. On error the caller restores a clone.
func (s *updateState) apply(plugin string, upd []*api.ContainerUpdate, evict []*api.ContainerEviction) error {
	dropped, err := s.updates.merge(s.owners, plugin, upd)
	if err != nil {
		return err
	}
	s.dropped = append(s.dropped, dropped...)
	for _, e := range evict {
		if e == nil {
			return invalid(plugin, "nil eviction")
		}
		s.evict = append(s.evict, cloneMsg(e))
	}
	return nil
}
