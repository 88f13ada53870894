// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// claims is what one plugin's changes are merged through: claim and clear
// record ownership, plugin names the culprit in errors.
type claims struct {
	plugin string
	claim  claimFn
	clear  func(f api.Field, key string)
}

// replay returns claims that record nothing. A change already claimed on the
// merged reply is replayed with it onto the request's container.
func (cl claims) replay() claims {
	return claims{plugin: cl.plugin, claim: noClaim, clear: func(api.Field, string) {}}
}

// markedKey validates an entry key and splits off the removal marker.
// "" and "-" are rejected: they name no entry.
func (cl claims) markedKey(f api.Field, k string) (key string, remove bool, err error) {
	key, remove = strings.CutPrefix(k, "-")
	if key == "" {
		return "", false, invalid(cl.plugin, "%s key %q names nothing", fieldName(f), k)
	}
	return key, remove, nil
}

// plainKey validates the key of an entry that has no removal form (rlimits,
// CDI devices, hugepages, unified). A leading '-' is kept as part of the key,
// but "" and "-" alone are rejected like everywhere else.
func (cl claims) plainKey(f api.Field, k string) error {
	if k == "" || k == "-" {
		return invalid(cl.plugin, "%s key %q names nothing", fieldName(f), k)
	}
	return nil
}

// msg is the constraint for generated message pointers, which lets generic
// code compare them with nil and clone them.
type msg[E any] interface {
	*E
	proto.Message
}

// cloneMsg is a nil-safe, typed proto.Clone.
func cloneMsg[E any, P msg[E]](p P) P {
	if p == nil {
		return nil
	}
	return proto.Clone(p).(P)
}

func cloneList[E any, P msg[E]](list []P) []P {
	if list == nil {
		return nil
	}
	out := make([]P, len(list))
	for i, p := range list {
		out[i] = cloneMsg(p)
	}
	return out
}

// rewrite returns a new list made from list in one pass: entries whose key is
// in drop are removed, and each of puts replaces the first entry with its key
// (later ones are removed) or is appended. Puts must have distinct keys, which
// ownership claims guarantee. One pass keeps hostile replies with huge lists
// linear.
func rewrite[T any](list []T, key func(T) string, drop map[string]bool, puts []T) []T {
	put := make(map[string]int, len(puts))
	for i, p := range puts {
		put[key(p)] = i
	}
	used := make([]bool, len(puts))
	out := make([]T, 0, len(list)+len(puts))
	for _, e := range list {
		k := key(e)
		if i, ok := put[k]; ok {
			if !used[i] {
				out = append(out, puts[i])
				used[i] = true
			}
			continue
		}
		if !drop[k] {
			out = append(out, e)
		}
	}
	for i, p := range puts {
		if !used[i] {
			out = append(out, p)
		}
	}
	return out
}

// firstError returns the first non-nil error. Callers evaluate all steps
// eagerly; that is harmless because a failed reply is discarded as a whole.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Entry keys of the keyed messages.
func mountKey(m *api.Mount) string              { return m.GetDestination() }
func envKey(kv *api.KeyValue) string            { return kv.GetKey() }
func deviceKey(d *api.LinuxDevice) string       { return d.GetPath() }
func namespaceKey(n *api.LinuxNamespace) string { return n.GetType() }
func rlimitKey(r *api.POSIXRlimit) string       { return r.GetType() }
func cdiKey(d *api.CDIDevice) string            { return d.GetName() }
func hugepageKey(h *api.HugepageLimit) string   { return h.GetPageSize() }

// envName is the name part of a container's "NAME=value" entry.
func envName(e string) string {
	name, _, _ := strings.Cut(e, "=")
	return name
}

// isEmpty tells whether a reply asks for nothing: most plugins' replies to
// most events, which then cost no snapshot of the merge state. Lists that
// are set answer at once; only what is left is measured, by proto.Size (0
// for nil too), which walks maps by reflection.
func isEmpty(m proto.Message) bool {
	switch r := m.(type) {
	case *api.CreateContainerResponse:
		if r == nil || len(r.Update) > 0 || len(r.Evict) > 0 || !adjustmentIsEmpty(r.Adjust) {
			return r == nil
		}
	case *api.UpdateContainerResponse:
		if r == nil || len(r.Update) > 0 || len(r.Evict) > 0 {
			return r == nil
		}
	case *api.StopContainerResponse:
		if r == nil || len(r.Update) > 0 {
			return r == nil
		}
	}
	return proto.Size(m) == 0
}

// adjustmentIsEmpty is isEmpty for an adjustment, with the fields plugins
// set most checked first.
func adjustmentIsEmpty(a *api.ContainerAdjustment) bool {
	if len(a.GetAnnotations()) > 0 || len(a.GetEnv()) > 0 || len(a.GetMounts()) > 0 || len(a.GetArgs()) > 0 ||
		len(a.GetRlimits()) > 0 || len(a.GetCDIDevices()) > 0 {
		return false
	}
	return proto.Size(a) == 0
}
