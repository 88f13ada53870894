// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"strings"

	"github.com/nrikit/nrikit/api"
)

// markedList is a list adjustment whose entries are keyed and may carry the
// removal marker on their key (mounts, env, devices).
type markedList[P any] struct {
	field api.Field
	in    []P
	out   *[]P           // the merged list
	key   func(P) string // entry key, marker included
	// ctr rewrites the container's list. puts are the reply's own entries:
	// ctr copies what it keeps of them.
	ctr func(drop map[string]bool, puts []P)
}

// mergeMarkedList implements the reference's merge rules for mounts, env and devices:
//   - an entry claims its key, is appended to the merged list and replaces
//     the container's entry with the same key;
//   - "-K" drops K from the container and an earlier plugin's K from the
//     merged list, clearing K's ownership to this plugin if it dropped one;
//   - "-K" with K in the same reply replaces: ownership is cleared to this
//     plugin even if nothing was dropped ("remove and set in one reply replaces"), then K is claimed;
//   - "-K" without K is forwarded in the merged list, once.
//
// Deliberate deviation: the reference forwards "-K" only for mounts, so a
// plugin's removal of an env variable or a device that came with the original
// container never reaches the runtime. We forward it for all
// three; the marker is part of the protocol and the reference's
// own spec generator honours it.
func mergeMarkedList[E any, P msg[E]](cl claims, l markedList[P]) error {
	if len(l.in) == 0 {
		return nil // nothing to merge: the lists stay as they are
	}
	var removed, adds []P
	drop, set := map[string]bool{}, map[string]bool{}
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
		case !drop[key]:
			drop[key] = true
			removed = append(removed, e)
		}
	}
	// Which removals hit an earlier plugin's entry, and which were already
	// forwarded by an earlier plugin.
	present, forwarded := map[string]bool{}, map[string]bool{}
	for _, e := range *l.out {
		k := l.key(e)
		present[k] = drop[k]
		if r, ok := strings.CutPrefix(k, "-"); ok {
			forwarded[r] = true
		}
	}
	for k := range drop {
		if present[k] || set[k] {
			cl.clear(l.field, k)
		}
	}
	for _, e := range adds {
		if err := cl.claim(l.field, l.key(e)); err != nil {
			return err
		}
	}
	out := rewrite(*l.out, l.key, drop, nil)
	out = append(out, cloneList(adds)...)
	for _, e := range removed {
		if k := strings.TrimPrefix(l.key(e), "-"); !set[k] && !forwarded[k] {
			out = append(out, cloneMsg(e))
		}
	}
	*l.out = out
	l.ctr(drop, adds)
	return nil
}

func (r *createReply) mounts(a *api.ContainerAdjustment) error {
	return mergeMarkedList(r.claims, markedList[*api.Mount]{
		field: api.Field_Mounts,
		in:    a.Mounts,
		out:   &r.out.Mounts,
		key:   mountKey,
		ctr: func(drop map[string]bool, puts []*api.Mount) {
			r.ctr.Mounts = rewrite(r.ctr.Mounts, mountKey, drop, cloneList(puts))
		},
	})
}

func (r *createReply) env(a *api.ContainerAdjustment) error {
	for _, kv := range a.Env {
		if strings.Contains(kv.GetKey(), "=") {
			return invalid(r.plugin, "environment variable name %q contains '='", kv.GetKey())
		}
	}
	return mergeMarkedList(r.claims, markedList[*api.KeyValue]{
		field: api.Field_Env,
		in:    a.Env,
		out:   &r.out.Env,
		key:   envKey,
		ctr: func(drop map[string]bool, puts []*api.KeyValue) {
			vars := make([]string, len(puts))
			for i, kv := range puts {
				vars[i] = kv.Key + "=" + kv.Value
			}
			r.ctr.Env = rewrite(r.ctr.Env, envName, drop, vars)
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
		ctr: func(drop map[string]bool, puts []*api.LinuxDevice) {
			if r.ctr.Linux == nil && len(puts) == 0 {
				return
			}
			r.ctrLinux().Devices = rewrite(r.ctrLinux().Devices, deviceKey, drop, cloneList(puts))
		},
	})
}

// namespaces differ from the other marked lists: removals are
// claimed too, and every entry is forwarded as given, "-T" included. The
// runtime applies them in order.
//
// "-T" with T in one reply replaces ("remove and set in one reply replaces"): ownership is cleared to this
// plugin, earlier merged entries of type T are dropped and only T is
// forwarded. The reference leaves this case unspecified.
func (r *createReply) namespaces(l *api.LinuxContainerAdjustment) error {
	if len(l.Namespaces) == 0 {
		return nil
	}
	removes, sets := map[string]bool{}, map[string]bool{}
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
	replace := map[string]bool{}
	for k := range sets {
		if removes[k] {
			replace[k] = true
			r.clear(api.Field_Namespace, k)
		}
	}
	out := r.outLinux()
	out.Namespaces = rewrite(out.Namespaces, unmarkedNamespace, replace, nil)
	drop := map[string]bool{}
	var puts []*api.LinuxNamespace
	for _, n := range l.Namespaces {
		key, remove, _ := r.markedKey(api.Field_Namespace, n.Type)
		if remove && replace[key] {
			continue // folded into the set
		}
		if err := r.claim(api.Field_Namespace, key); err != nil {
			return err
		}
		out.Namespaces = append(out.Namespaces, cloneMsg(n))
		if remove {
			drop[key] = true
		} else {
			puts = append(puts, cloneMsg(n))
		}
	}
	if r.ctr.Linux != nil || len(puts) > 0 {
		r.ctrLinux().Namespaces = rewrite(r.ctrLinux().Namespaces, namespaceKey, drop, puts)
	}
	return nil
}

func unmarkedNamespace(n *api.LinuxNamespace) string { return strings.TrimPrefix(n.GetType(), "-") }

func (r *createReply) rlimits(a *api.ContainerAdjustment) error {
	return mergeKeyed(r.claims, api.Field_Rlimits, a.Rlimits, rlimitKey, &r.out.Rlimits,
		func(puts []*api.POSIXRlimit) { r.ctr.Rlimits = rewrite(r.ctr.Rlimits, rlimitKey, nil, puts) })
}

// cdiDevices are add-only and not shown to later plugins.
func (r *createReply) cdiDevices(a *api.ContainerAdjustment) error {
	return mergeKeyed(r.claims, api.Field_CdiDevices, a.CDIDevices, cdiKey, &r.out.CDIDevices, nil)
}
