// SPDX-License-Identifier: Apache-2.0

// The IDs reserved for the plugins the runtime starts itself, whatever their state.

package relay

import (
	"fmt"

	"github.com/nrikit/nrikit/internal/nri"
)

// reservation is an ID the runtime starts a plugin under: a pre-installed
// plugin of the plugin path, a WASM module there, a builtin. It holds from
// Start, which reserves the IDs before the socket opens, until Stop: while
// the plugin is active, restarting, crashed or dropped, no external
// connection registers under it, so that none takes the operator's
// settings for it, its place among the required plugins, or its restart.
type reservation struct {
	kind       nri.Kind
	restarting bool // RestartPlugin is bringing it back
}

// reserve reserves id for a plugin of kind the runtime starts.
func (r *registry) reserve(id string, kind nri.Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reserved == nil {
		r.reserved = map[string]*reservation{}
	}
	r.reserved[id] = &reservation{kind: kind}
}

// release frees id: the runtime no longer has the plugin installed.
func (r *registry) release(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.reserved, id)
}

// reservedKind is the kind of plugin id is reserved for, if it is.
func (r *registry) reservedKind(id string) (nri.Kind, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.reserved[id]
	if !ok {
		return 0, false
	}
	return res.kind, true
}

// beginRestart marks id restarting; false if it is already, or not
// reserved. endRestart ends the mark.
func (r *registry) beginRestart(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.reserved[id]
	if !ok || res.restarting {
		return false
	}
	res.restarting = true
	return true
}

func (r *registry) endRestart(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if res, ok := r.reserved[id]; ok {
		res.restarting = false
	}
}

// reservedLocked says why an external plugin may not take id, which is
// reserved, and what state its plugin is in; nil if id is not reserved.
// Called with mu held.
func (r *registry) reservedLocked(id string) error {
	res, ok := r.reserved[id]
	if !ok {
		return nil
	}
	state := "not running"
	switch {
	case r.holderLocked(id) != nil:
		state = "active"
	case res.restarting:
		state = "restarting"
	case res.kind == nri.Preinstalled:
		state = "not running: RestartPlugin relaunches it"
	}
	return fmt.Errorf("%w (%s plugin %s, %s)", ErrPluginIDTaken, res.kind, id, state)
}
