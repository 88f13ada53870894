// SPDX-License-Identifier: Apache-2.0

// Rules: the peers an operator binds a plugin's name to, checked once, and matching a peer.

package identity

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/nrikit/nrikit/internal/accept"
)

// Rules bind a plugin's name to peers. A peer matches when it matches
// every key that is set: its uid is one of UIDs, its gid one of GIDs, its
// executable matches one of the Exe globs, its pod one of the Pods globs.
// Globs are path.Match patterns: '*' matches within one path element, so
// "kube-system/dranet-*" matches the pods of one namespace only, and
// "/opt/nri/bin/*" the files of one directory.
type Rules struct {
	UIDs, GIDs []uint32
	Exe        []string // absolute paths, globs
	Pods       []string // "namespace/name", globs
}

// maxID is the largest uid or gid the kernel stores: (uid_t)-1 means none.
const maxID = 1<<32 - 2

// maxEntries bounds the entries of one key: the rules are matched at each
// registration of the name.
const maxEntries = 64

// ErrNoPeer: the rules bind a name to no peer at all; unset them instead.
var ErrNoPeer = errors.New("binds the name to no peer: set uids, gids, exe or pods")

// Validate checks the rules, naming the first bad value by its key under
// path (`plugin_settings."10-dranet".peer`): at least one key set, ids the
// kernel can store, well-formed globs, absolute executable paths, pods as
// namespace/name.
func (r *Rules) Validate(at string) error {
	if len(r.UIDs)+len(r.GIDs)+len(r.Exe)+len(r.Pods) == 0 {
		return fmt.Errorf("%s: %w", at, ErrNoPeer)
	}
	for _, k := range []struct {
		key string
		ids []uint32
	}{{"uids", r.UIDs}, {"gids", r.GIDs}} {
		if len(k.ids) > maxEntries {
			return fmt.Errorf("%s.%s: %d entries, more than %d", at, k.key, len(k.ids), maxEntries)
		}
		if i := slices.IndexFunc(k.ids, func(id uint32) bool { return id > maxID }); i >= 0 {
			return fmt.Errorf("%s.%s: %d is beyond the largest id the kernel stores, %d", at, k.key, k.ids[i], uint64(maxID))
		}
	}
	for _, k := range []struct {
		key   string
		globs []string
	}{{"exe", r.Exe}, {"pods", r.Pods}} {
		if len(k.globs) > maxEntries {
			return fmt.Errorf("%s.%s: %d entries, more than %d", at, k.key, len(k.globs), maxEntries)
		}
		for _, g := range k.globs {
			if err := checkGlob(k.key, g); err != nil {
				return fmt.Errorf("%s.%s: %q: %w", at, k.key, g, err)
			}
		}
	}
	return nil
}

func checkGlob(key, g string) error {
	if _, err := path.Match(g, ""); err != nil {
		return err
	}
	switch key {
	case "exe":
		if !strings.HasPrefix(g, "/") {
			return errors.New("not an absolute path: the kernel tells the executable's whole path")
		}
	case "pods":
		ns, name, ok := strings.Cut(g, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return errors.New(`not "namespace/name"`)
		}
	}
	return nil
}

// NeedsPod tells whether matching needs the peer's pod, from the runtime.
func (r *Rules) NeedsPod() bool { return len(r.Pods) > 0 }

// Match says why p does not match the rules, nil when it does.
func (r *Rules) Match(p Peer) error {
	if len(r.UIDs) > 0 {
		if p.UID < 0 {
			return errors.New("this OS does not tell a peer's uid, which the name is bound to")
		}
		if !slices.Contains(r.UIDs, uint32(p.UID)) {
			return fmt.Errorf("uid %d is not one of uids %v", p.UID, r.UIDs)
		}
	}
	if len(r.GIDs) > 0 {
		if p.GID < 0 {
			return errors.New("this OS does not tell a peer's gid, which the name is bound to")
		}
		if !slices.Contains(r.GIDs, uint32(p.GID)) {
			return fmt.Errorf("gid %d is not one of gids %v", p.GID, r.GIDs)
		}
	}
	if len(r.Exe) > 0 {
		if p.Exe == "" {
			return errors.New("the peer's executable is not known (this OS does not tell it, or the process is gone), and the name is bound to executables")
		}
		if !matchesAny(r.Exe, p.Exe) {
			return fmt.Errorf("executable %s matches none of exe %q", p.Exe, r.Exe)
		}
	}
	if len(r.Pods) > 0 {
		if p.PodErr != nil {
			return fmt.Errorf("its pod is not known (%w), and the name is bound to pods", p.PodErr)
		}
		if p.Pod == "" {
			return fmt.Errorf("it runs in no pod, and the name is bound to pods %q", r.Pods)
		}
		if !matchesAny(r.Pods, p.Pod) {
			return fmt.Errorf("pod %s matches none of pods %q", p.Pod, r.Pods)
		}
	}
	return nil
}

func matchesAny(globs []string, s string) bool {
	return slices.ContainsFunc(globs, func(g string) bool {
		ok, _ := path.Match(g, s) // the globs were checked (Validate)
		return ok
	})
}

// Unmatchable lists the keys set in the rules that no peer can match here:
// those this OS does not tell (knows), and pods when the runtime gives no
// Resolver. A name bound to them cannot be claimed over the socket.
func (r *Rules) Unmatchable(knows accept.Knows, resolver bool) []string {
	var out []string
	add := func(key string, set, known bool) {
		if set && !known {
			out = append(out, key)
		}
	}
	add("uids", len(r.UIDs) > 0, knows.UID)
	add("gids", len(r.GIDs) > 0, knows.GID)
	add("exe", len(r.Exe) > 0, knows.Exe)
	add("pods", len(r.Pods) > 0, resolver && knows.PID)
	return out
}

// String writes the rules as an operator wrote them.
func (r *Rules) String() string {
	var parts []string
	add := func(key, value string, set bool) {
		if set {
			parts = append(parts, key+"="+value)
		}
	}
	add("uids", fmt.Sprint(r.UIDs), len(r.UIDs) > 0)
	add("gids", fmt.Sprint(r.GIDs), len(r.GIDs) > 0)
	add("exe", strconv.Quote(strings.Join(r.Exe, ",")), len(r.Exe) > 0)
	add("pods", strconv.Quote(strings.Join(r.Pods, ",")), len(r.Pods) > 0)
	return strings.Join(parts, " ")
}
