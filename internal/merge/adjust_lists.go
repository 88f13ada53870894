package merge

import (
	"slices"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// markedList is a list adjustment whose entries are keyed and may carry the
// removal marker on their key (mounts, env, devices).
type markedList[P any] struct {
	field   api.Field
	in      []P
	out     *[]P             // the merged list
	key     func(P) string   // entry key, marker included
	ctrDrop func(key string) // removes key from the container
	ctrPut  func(P)          // adds or replaces an entry in the container
}

// mergeMarkedList implements facts §7.2 for mounts, env and devices:
//   - an entry claims its key, is appended to the merged list and replaces
//     the container's entry with the same key;
//   - "-K" drops K from the container and an earlier plugin's K from the
//     merged list, clearing K's ownership to this plugin if it dropped one;
//   - "-K" with K in the same reply replaces: ownership is cleared to this
//     plugin even if nothing was dropped (rule 6), then K is claimed;
//   - "-K" without K is forwarded in the merged list, once.
//
// Deliberate deviation: the reference forwards "-K" only for mounts, so a
// plugin's removal of an env variable or a device that came with the original
// container never reaches the runtime (facts §9.6). We forward it for all
// three; the marker is part of the protocol (facts §3.5) and the reference's
// own spec generator honours it.
func mergeMarkedList[E any, P msg[E]](cl claims, l markedList[P]) error {
	var removed []string
	removal := map[string]P{}
	set := map[string]bool{}
	var adds []P
	for _, e := range l.in {
		if e == nil {
			return invalid(cl.plugin, "nil %s entry", fieldName(l.field))
		}
		key, remove, err := cl.markedKey(l.field, l.key(e))
		if err != nil {
			return err
		}
		switch {
		case !remove:
			set[key] = true
			adds = append(adds, e)
		case removal[key] == nil:
			removed = append(removed, key)
			removal[key] = e
		}
	}
	for _, k := range removed {
		n := len(*l.out)
		*l.out = dropKey(*l.out, k, l.key)
		if len(*l.out) < n || set[k] {
			cl.clear(l.field, k)
		}
		l.ctrDrop(k)
	}
	for _, e := range adds {
		if err := cl.claim(l.field, l.key(e)); err != nil {
			return err
		}
		*l.out = append(*l.out, cloneMsg(e))
		l.ctrPut(cloneMsg(e))
	}
	for _, k := range removed {
		if set[k] || slices.ContainsFunc(*l.out, func(e P) bool { return l.key(e) == "-"+k }) {
			continue
		}
		*l.out = append(*l.out, cloneMsg(removal[k]))
	}
	return nil
}

func (r *createReply) mounts(a *api.ContainerAdjustment) error {
	return mergeMarkedList(r.claims, markedList[*api.Mount]{
		field:   api.Field_Mounts,
		in:      a.Mounts,
		out:     &r.out.Mounts,
		key:     mountKey,
		ctrDrop: func(k string) { r.ctr.Mounts = dropKey(r.ctr.Mounts, k, mountKey) },
		ctrPut:  func(m *api.Mount) { r.ctr.Mounts = upsert(r.ctr.Mounts, m, mountKey) },
	})
}

func (r *createReply) env(a *api.ContainerAdjustment) error {
	for _, kv := range a.Env {
		if strings.Contains(kv.GetKey(), "=") {
			return invalid(r.plugin, "environment variable name %q contains '='", kv.GetKey())
		}
	}
	return mergeMarkedList(r.claims, markedList[*api.KeyValue]{
		field:   api.Field_Env,
		in:      a.Env,
		out:     &r.out.Env,
		key:     envKey,
		ctrDrop: func(k string) { r.ctr.Env = dropKey(r.ctr.Env, k, envName) },
		ctrPut: func(kv *api.KeyValue) {
			r.ctr.Env = upsert(r.ctr.Env, kv.Key+"="+kv.Value, envName)
		},
	})
}

func (r *createReply) devices(l *api.LinuxContainerAdjustment) error {
	if len(l.Devices) == 0 {
		return nil
	}
	return mergeMarkedList(r.claims, markedList[*api.LinuxDevice]{
		field: api.Field_Devices,
		in:    l.Devices,
		out:   &r.outLinux().Devices,
		key:   deviceKey,
		ctrDrop: func(k string) {
			if r.ctr.Linux != nil {
				r.ctr.Linux.Devices = dropKey(r.ctr.Linux.Devices, k, deviceKey)
			}
		},
		ctrPut: func(d *api.LinuxDevice) {
			r.ctrLinux().Devices = upsert(r.ctrLinux().Devices, d, deviceKey)
		},
	})
}

// namespaces differ from the other marked lists (facts §7.2): removals are
// claimed too, and every entry is forwarded as given, "-T" included. The
// runtime applies them in order.
//
// "-T" with T in one reply replaces (rule 6): ownership is cleared to this
// plugin, earlier merged entries of type T are dropped and only T is
// forwarded. The reference leaves this case unspecified.
func (r *createReply) namespaces(l *api.LinuxContainerAdjustment) error {
	removes, sets, replaced := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, n := range l.Namespaces {
		if n == nil {
			return invalid(r.plugin, "nil namespace entry")
		}
		key, remove, err := r.markedKey(api.Field_Namespace, n.Type)
		if err != nil {
			return err
		}
		if remove {
			removes[key] = true
		} else {
			sets[key] = true
		}
	}
	for _, n := range l.Namespaces {
		key, remove, _ := r.markedKey(api.Field_Namespace, n.Type)
		replace := removes[key] && sets[key]
		if replace && remove {
			continue // folded into the set
		}
		if replace && !replaced[key] {
			replaced[key] = true
			r.clear(api.Field_Namespace, key)
			r.outLinux().Namespaces = slices.DeleteFunc(r.outLinux().Namespaces, func(e *api.LinuxNamespace) bool {
				return strings.TrimPrefix(e.Type, "-") == key
			})
		}
		if err := r.claim(api.Field_Namespace, key); err != nil {
			return err
		}
		r.outLinux().Namespaces = append(r.outLinux().Namespaces, cloneMsg(n))
		if remove {
			if r.ctr.Linux != nil {
				r.ctr.Linux.Namespaces = dropKey(r.ctr.Linux.Namespaces, key, namespaceKey)
			}
			continue
		}
		r.ctrLinux().Namespaces = upsert(r.ctrLinux().Namespaces, cloneMsg(n), namespaceKey)
	}
	return nil
}

func (r *createReply) rlimits(a *api.ContainerAdjustment) error {
	return mergeKeyed(r.claims, api.Field_Rlimits, a.Rlimits, rlimitKey, &r.out.Rlimits,
		func(rl *api.POSIXRlimit) { r.ctr.Rlimits = upsert(r.ctr.Rlimits, rl, rlimitKey) })
}

// cdiDevices are add-only and not shown to later plugins (facts §7.2).
func (r *createReply) cdiDevices(a *api.ContainerAdjustment) error {
	return mergeKeyed(r.claims, api.Field_CdiDevices, a.CDIDevices, cdiKey, &r.out.CDIDevices, nil)
}
