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
	ctrs map[string]*fieldOwners
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

// newOwners returns an empty table; its map is made on first use, since
// most replies claim nothing.
func newOwners() *owners { return &owners{} }

func (o *owners) of(id string) *fieldOwners {
	fo := o.ctrs[id]
	if fo == nil {
		fo = &fieldOwners{}
		o.put(id, fo)
	}
	return fo
}

func (o *owners) put(id string, fo *fieldOwners) {
	if o.ctrs == nil {
		o.ctrs = map[string]*fieldOwners{}
	}
	o.ctrs[id] = fo
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

// claimer returns a claimFn for plugin in container id.
func (o *owners) claimer(id, plugin string) claimFn {
	return func(f api.Field, key string) error { return o.claim(id, f, key, plugin) }
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
	c := &owners{ctrs: make(map[string]*fieldOwners, len(o.ctrs))}
	for id, fo := range o.ctrs {
		c.ctrs[id] = fo.clone()
	}
	return c
}

// proto converts the table into the message sent to validators. The message
// shares the table's maps: the caller must not change it, and must clone
// the table (clone) before changing it again.
func (o *owners) proto() *api.OwningPlugins {
	out := &api.OwningPlugins{Owners: make(map[string]*api.FieldOwners, len(o.ctrs))}
	for id, fo := range o.ctrs {
		if len(fo.simple) == 0 && len(fo.compound) == 0 {
			continue
		}
		out.Owners[id] = &api.FieldOwners{Simple: fo.simple, Compound: fo.compound}
	}
	return out
}
