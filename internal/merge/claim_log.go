// SPDX-License-Identifier: Apache-2.0

package merge

import "github.com/nrikit/nrikit/api"

// claimLog records the claims one update makes in one container's table,
// so that an update that fails can be undone. Undoing costs what the update
// claimed, not what the table holds: a reply may send thousands of updates
// of one container, and a copy of its table per update made the merge
// quadratic.
type claimLog struct {
	o      *owners
	id     string
	plugin string
	fresh  bool // the container had no table before the update
	done   []claimed
}

// claimed is one successful claim and the owner it replaced ("" for none;
// an owner is never "", since checkPlugin refuses that name).
type claimed struct {
	f    api.Field
	key  string
	prev string
}

// logClaims starts recording the claims of plugin in container id.
func (o *owners) logClaims(id, plugin string) *claimLog {
	return &claimLog{o: o, id: id, plugin: plugin, fresh: o.lookup(id) == nil}
}

// claim is a claimFn that records what it changed.
func (l *claimLog) claim(f api.Field, key string) error {
	prev := l.o.of(l.id).get(f, key)
	if err := l.o.claim(l.id, f, key, l.plugin); err != nil {
		return err
	}
	l.done = append(l.done, claimed{f: f, key: key, prev: prev})
	return nil
}

// undo puts the table back as it was before the first claim, latest claim
// first.
func (l *claimLog) undo() {
	if l.fresh {
		l.o.remove(l.id)
		return
	}
	fo := l.o.lookup(l.id)
	for i := len(l.done) - 1; i >= 0; i-- {
		c := l.done[i]
		if c.prev == "" {
			fo.unset(c.f, c.key)
		} else {
			fo.set(c.f, c.key, c.prev)
		}
	}
	l.done = nil
}

// unset removes the owner of f/key. A compound field left without entries
// is removed too, as if it had never been claimed: the validators' view
// (proto) then shows no empty entry for it.
func (fo *fieldOwners) unset(f api.Field, key string) {
	if key == "" {
		delete(fo.simple, int32(f))
		return
	}
	c := fo.compound[int32(f)]
	if c == nil {
		return
	}
	delete(c.Owners, key)
	if len(c.Owners) == 0 {
		delete(fo.compound, int32(f))
	}
}
