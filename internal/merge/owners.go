// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"maps"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// owners is the ownership table of the reference's merge rules: per container ID, which plugin
// set each simple field and each entry of a compound field.
//
// An owner is the plugin's "idx-name". A cleared owner is stored as "-R": R
// removed the value and only R may claim it again. Values that came with the
// original container or the runtime's request have no owner at all, so any
// plugin may override them.
type owners struct {
	// one is the table of the only container claimed in so far, oneID's:
	// most replies touch the created container alone, and a map for one
	// entry cost two allocations per creation. From the second container
	// on, ctrs holds every table, and one is nil.
	oneID string
	one   *fieldOwners
	ctrs  map[string]*fieldOwners
}

// fieldOwners is the table of one container. Compound fields are keyed by entry
// (annotation key, mount destination, ...); simple fields by the field alone.
// The maps have the types of the validators' message, so that it can share
// them (proto), and are made on first use.
type fieldOwners struct {
	simple   map[int32]string
	compound map[int32]*api.CompoundFieldOwners
}

// claimFn claims field f (entry key of a compound field, "" for a simple one)
// for whoever the function was made for.
type claimFn func(f api.Field, key string) error

// noClaim is used when replaying an already-claimed change onto a second copy.
func noClaim(api.Field, string) error { return nil }

func (o *owners) of(id string) *fieldOwners {
	fo := o.lookup(id)
	if fo == nil {
		fo = &fieldOwners{}
		o.put(id, fo)
	}
	return fo
}

// lookup is container id's table; nil if it has none.
func (o *owners) lookup(id string) *fieldOwners {
	if o.ctrs != nil {
		return o.ctrs[id]
	}
	if o.one != nil && o.oneID == id {
		return o.one
	}
	return nil
}

func (o *owners) put(id string, fo *fieldOwners) {
	if o.ctrs == nil && (o.one == nil || o.oneID == id) {
		o.oneID, o.one = id, fo
		return
	}
	if o.ctrs == nil {
		o.ctrs = map[string]*fieldOwners{o.oneID: o.one}
		o.oneID, o.one = "", nil
	}
	o.ctrs[id] = fo
}

// remove drops container id's table.
func (o *owners) remove(id string) {
	if o.ctrs != nil {
		delete(o.ctrs, id)
	} else if o.oneID == id {
		o.oneID, o.one = "", nil
	}
}

// each calls f with every container's table.
func (o *owners) each(f func(id string, fo *fieldOwners)) {
	if o.one != nil {
		f(o.oneID, o.one)
	}
	for id, fo := range o.ctrs {
		f(id, fo)
	}
}

// len is the number of containers with a table.
func (o *owners) len() int {
	if o.one != nil {
		return 1
	}
	return len(o.ctrs)
}

func (fo *fieldOwners) get(f api.Field, key string) string {
	if key == "" {
		return fo.simple[int32(f)]
	}
	return fo.compound[int32(f)].GetOwners()[key]
}

func (fo *fieldOwners) set(f api.Field, key, owner string) {
	if key == "" {
		if fo.simple == nil {
			fo.simple = map[int32]string{}
		}
		fo.simple[int32(f)] = owner
		return
	}
	if fo.compound == nil {
		fo.compound = map[int32]*api.CompoundFieldOwners{}
	}
	c := fo.compound[int32(f)]
	if c == nil {
		c = &api.CompoundFieldOwners{Owners: map[string]string{}}
		fo.compound[int32(f)] = c
	}
	c.Owners[key] = owner
}

// claim makes plugin the owner of f/key in container id. It fails if anyone
// else owns it, if someone else cleared it, or if plugin already owns it (the
// same key twice in one reply is a conflict too).
func (o *owners) claim(id string, f api.Field, key, plugin string) error {
	fo := o.of(id)
	if cur := fo.get(f, key); cur != "" && cur != "-"+plugin {
		return &ConflictError{Field: f, Key: key, Owner: strings.TrimPrefix(cur, "-"), Plugin: plugin}
	}
	fo.set(f, key, plugin)
	return nil
}

// clear records that plugin removed f/key. Clearing never conflicts.
func (o *owners) clear(id string, f api.Field, key, plugin string) {
	o.of(id).set(f, key, "-"+plugin)
}

// accumulate adds plugin to a comma-separated owner list (OCI hooks).
func (o *owners) accumulate(id string, f api.Field, plugin string) {
	fo := o.of(id)
	cur := fo.get(f, "")
	switch {
	case cur == "":
		fo.set(f, "", plugin)
	case cur == plugin || strings.HasSuffix(cur, ","+plugin):
		// already recorded
	default:
		fo.set(f, "", cur+","+plugin)
	}
}

func (fo *fieldOwners) clone() *fieldOwners {
	if fo == nil {
		return nil
	}
	c := &fieldOwners{simple: maps.Clone(fo.simple)}
	if fo.compound != nil {
		c.compound = make(map[int32]*api.CompoundFieldOwners, len(fo.compound))
		for f, m := range fo.compound {
			c.compound[f] = &api.CompoundFieldOwners{Owners: maps.Clone(m.GetOwners())}
		}
	}
	return c
}

func (o *owners) clone() *owners {
	c := &owners{oneID: o.oneID, one: o.one.clone()}
	if o.ctrs != nil {
		c.ctrs = make(map[string]*fieldOwners, len(o.ctrs))
		for id, fo := range o.ctrs {
			c.ctrs[id] = fo.clone()
		}
	}
	return c
}

// proto converts the table into the message sent to validators. The message
// shares the table's maps: the caller must not change it, and must clone
// the table (clone) before changing it again.
func (o *owners) proto() *api.OwningPlugins {
	out := &api.OwningPlugins{Owners: make(map[string]*api.FieldOwners, o.len())}
	o.each(func(id string, fo *fieldOwners) {
		if len(fo.simple) > 0 || len(fo.compound) > 0 {
			out.Owners[id] = &api.FieldOwners{Simple: fo.simple, Compound: fo.compound}
		}
	})
	return out
}
