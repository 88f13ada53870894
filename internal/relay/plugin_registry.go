// SPDX-License-Identifier: Apache-2.0

// The ordered, copy-on-write list of active plugins.

package relay

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nrikit/nrikit/internal/nri"
)

// registry is the ordered set of active plugins. The slice is copy-on-write:
// a fan-out iterates a snapshot without taking any lock, so registration
// and removal never wait for a plugin call, and events never wait for each
// other here.
type registry struct {
	mu     sync.Mutex // serialises the changes
	list   []*plugin
	closed bool
	// reserved are the IDs of the plugins the runtime starts itself
	// (plugin_reservations.go).
	reserved map[string]*reservation
	// published is list as of the last change, for lock-free snapshots;
	// dispatch and observing are its plugins the runtime waits for and its
	// observers (rollout.go), dispatch being list itself when it has no
	// observer.
	published, dispatch, observing atomic.Pointer[[]*plugin]
}

// snapshot is the dispatch list: the plugins the runtime waits for, in
// order, observers left out.
func (r *registry) snapshot() []*plugin { return load(&r.dispatch) }

// all is every active plugin, observers included, in order.
func (r *registry) all() []*plugin { return load(&r.published) }

// observers is the active observers, in order; nil when there is none.
func (r *registry) observers() []*plugin { return load(&r.observing) }

func load(p *atomic.Pointer[[]*plugin]) []*plugin {
	if list := p.Load(); list != nil {
		return *list
	}
	return nil
}

// set replaces the list. Called with mu held.
func (r *registry) set(list []*plugin) {
	r.list = list
	dispatch, observing := list, []*plugin(nil)
	if slices.ContainsFunc(list, isObserver) {
		dispatch = slices.DeleteFunc(slices.Clone(list), isObserver)
		observing = slices.DeleteFunc(slices.Clone(list), func(p *plugin) bool { return !isObserver(p) })
	}
	r.published.Store(&list)
	r.dispatch.Store(&dispatch)
	r.observing.Store(&observing)
}

func isObserver(p *plugin) bool { return p.rollout.observer }

// open makes the registry accept plugins again after drain (Start after
// Stop), with no IDs reserved: Start reserves those it finds again.
func (r *registry) open() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = false
	r.reserved = nil
}

// Why join refuses a plugin.
var (
	errStopping = errors.New("nrikit: runtime is stopping")
	// ErrPluginIDTaken: an external plugin registered under the index and
	// name of a plugin the runtime starts itself (pre-installed, WASM or
	// builtin), whether it is active, restarting or not running. Only an
	// external instance replaces an external one: a local peer must not
	// take the operator's plugins' names, with their settings, nor a
	// required validator's identity.
	ErrPluginIDTaken = errors.New("nrikit: plugin ID is reserved for a plugin the runtime starts")
)

// join adds p in order. An external plugin with the same index and name is
// replaced and returned, so that the caller can shut it down. It fails once
// the registry is drained (the runtime is stopping), or when p is external
// and its ID is reserved or held by a plugin of another kind.
func (r *registry) join(p *plugin) (replaced *plugin, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errStopping
	}
	if p.kind == nri.External {
		if err := r.reservedLocked(p.id); err != nil {
			return nil, err
		}
	}
	if q := r.holderLocked(p.id); q != nil && !replaceable(q, p.kind) {
		return nil, idTaken(q)
	}
	list := make([]*plugin, 0, len(r.list)+1)
	for _, q := range r.list {
		if q.id == p.id {
			replaced = q
			continue
		}
		list = append(list, q)
	}
	list = append(list, p)
	slices.SortStableFunc(list, comparePlugins)
	r.set(list)
	return replaced, nil
}

// checkID says why an external plugin may not take id, nil if it may.
func (r *registry) checkID(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reservedLocked(id); err != nil {
		return err
	}
	if q := r.holderLocked(id); q != nil && !replaceable(q, nri.External) {
		return idTaken(q)
	}
	return nil
}

func (r *registry) holderLocked(id string) *plugin {
	for _, q := range r.list {
		if q.id == id {
			return q
		}
	}
	return nil
}

// replaceable: a new instance of kind replaces old only where both are
// external; the runtime's own plugins are started once, at Start.
func replaceable(old *plugin, kind nri.Kind) bool {
	return old.kind == nri.External && kind == nri.External
}

func idTaken(holder *plugin) error {
	return fmt.Errorf("%w (%s plugin %s, active)", ErrPluginIDTaken, holder.kind, holder.id)
}

// remove takes p out; it reports whether p was there.
func (r *registry) remove(p *plugin) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.list, p)
	if i < 0 {
		return false
	}
	r.set(slices.Delete(slices.Clone(r.list), i, i+1))
	return true
}

// drain empties the registry and closes it to new plugins.
func (r *registry) drain() []*plugin {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.list
	r.set(nil)
	r.closed = true
	return list
}

func (r *registry) len() int { return len(r.all()) }

// comparePlugins orders by index, ties broken by name: deterministic.
func comparePlugins(a, b *plugin) int {
	if c := strings.Compare(a.idx, b.idx); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}
