// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"slices"

	"github.com/nrikit/nrikit/api"
)

// markedMap is a map adjustment whose keys may carry the removal marker
// (annotations, sysctl, net devices).
type markedMap[V any] struct {
	field api.Field
	in    map[string]V
	out   func() map[string]V // the merged map, created on first use
	ctr   func() map[string]V // the container's map, created on first use
	dup   func(V) (V, bool)   // copies a value; false if the value is missing
}

// mergeMarkedMap implements the reference's merge rules for marked maps:
//   - K=v claims K and sets it in the merged map and in the container;
//   - "-K" is forwarded as "-K" in the merged map;
//   - "-K" with K in the same reply replaces: K's ownership is first cleared
//     to this plugin, so an earlier owner does not conflict;
//   - "-K" alone claims nothing and changes neither the container nor a
//     value an earlier plugin set (the runtime removes before it sets).
//
// Keys are visited in sorted order so that errors are deterministic.
func mergeMarkedMap[V any](cl claims, m markedMap[V]) error {
	// Replies carry a few keys: up to 8 of each kind are sorted in place,
	// without allocating.
	var keyBuf, setBuf, removedBuf [8]string
	keys := keyBuf[:0]
	for k := range m.in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	set, removed := setBuf[:0], removedBuf[:0] // both sorted, markers stripped
	for _, k := range keys {
		key, remove, err := cl.markedKey(m.field, k)
		if err != nil {
			return err
		}
		if remove {
			removed = append(removed, key)
		} else {
			set = append(set, key)
		}
	}
	for _, k := range set {
		v, ok := m.dup(m.in[k])
		if !ok {
			return invalid(cl.plugin, "%s %q has no value", fieldName(m.field), k)
		}
		if _, both := slices.BinarySearch(removed, k); both {
			cl.clear(m.field, k)
			delete(m.ctr(), k)
		}
		if err := cl.claim(m.field, k); err != nil {
			return err
		}
		m.out()[k] = v
		m.ctr()[k], _ = m.dup(m.in[k])
	}
	var tomb V // what a forwarded "-K" maps to: "" or a null net device
	for _, k := range removed {
		m.out()["-"+k] = tomb
	}
	return nil
}

func copyString(s string) (string, bool) { return s, true }

func copyNetDevice(d *api.LinuxNetDevice) (*api.LinuxNetDevice, bool) {
	return cloneMsg(d), d != nil
}

func (r *createReply) annotations(a *api.ContainerAdjustment) error {
	if len(a.Annotations) == 0 {
		return nil
	}
	return mergeMarkedMap(r.claims, markedMap[string]{
		field: api.Field_Annotations,
		in:    a.Annotations,
		out:   func() map[string]string { return ensureMap(&r.out.Annotations) },
		ctr:   func() map[string]string { return ensureMap(&r.ctr.Annotations) },
		dup:   copyString,
	})
}

// sysctl follows annotations. A pure removal goes into the merged sysctl map
// as in the reference at HEAD (≤ v0.12.2 put it among the annotations).
func (r *createReply) sysctl(l *api.LinuxContainerAdjustment) error {
	if len(l.Sysctl) == 0 {
		return nil
	}
	return mergeMarkedMap(r.claims, markedMap[string]{
		field: api.Field_Sysctl,
		in:    l.Sysctl,
		out:   func() map[string]string { return ensureMap(&r.outLinux().Sysctl) },
		ctr:   func() map[string]string { return ensureMap(&r.ctrLinux().Sysctl) },
		dup:   copyString,
	})
}

// netDevices follows annotations. A forwarded removal has a null value, as in
// the reference; on the wire (and in Response, which clones) that is an empty
// LinuxNetDevice.
func (r *createReply) netDevices(l *api.LinuxContainerAdjustment) error {
	if len(l.NetDevices) == 0 {
		return nil
	}
	return mergeMarkedMap(r.claims, markedMap[*api.LinuxNetDevice]{
		field: api.Field_LinuxNetDevices,
		in:    l.NetDevices,
		out:   func() map[string]*api.LinuxNetDevice { return ensureMap(&r.outLinux().NetDevices) },
		ctr:   func() map[string]*api.LinuxNetDevice { return ensureMap(&r.ctrLinux().NetDevices) },
		dup:   copyNetDevice,
	})
}

func ensureMap[V any](m *map[string]V) map[string]V {
	if *m == nil {
		*m = map[string]V{}
	}
	return *m
}
