// SPDX-License-Identifier: Apache-2.0

// Who may hold a plugin's name: names bound to peers (PeerRules), the runtime's view of a
// process's pod (WithPeerIdentity), and which names may register from the socket
// (WithExternalPlugins); what a plugin changes outside its scope (ErrOutOfScope).

package adaptation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nrikit/nrikit/internal/identity"
	"github.com/nrikit/nrikit/internal/relay"
	"github.com/nrikit/nrikit/internal/scope"
)

// PeerRules bind a plugin's name to the local processes that may register
// under it from the socket (plugin_settings."NN-name".peer). A connection
// claiming the name from a process that does not match is refused, with
// ErrPeerNotAllowed, and logged as a warning; so is a newcomer that would
// replace the plugin holding the name. The runtime's own plugins
// (pre-installed, WASM, builtin) are not matched: nrikit started them.
//
// A process matches when it matches every key that is set, and any entry of
// each: its uid, its effective gid, its executable's path and its pod, as
// the kernel told them when it connected (and, for the pod, the runtime's
// WithPeerIdentity). Exe and Pods are path.Match globs, in which '*' does
// not cross a '/': "/opt/nri/bin/*", "kube-system/dranet-*". At least one
// key must be set, each with at most 64 entries; where this OS or the
// runtime cannot tell what a key needs (no executable on darwin or
// FreeBSD, no pod without WithPeerIdentity), New warns and no connection
// can register under the name. docs/identity.md is the operator's guide.
type PeerRules struct {
	UIDs []uint32 `json:"uids,omitempty" toml:"uids"`
	GIDs []uint32 `json:"gids,omitempty" toml:"gids"`
	Exe  []string `json:"exe,omitempty" toml:"exe"`
	Pods []string `json:"pods,omitempty" toml:"pods"`
}

func (r *PeerRules) rules() *identity.Rules {
	if r == nil {
		return nil
	}
	return &identity.Rules{UIDs: slices.Clone(r.UIDs), GIDs: slices.Clone(r.GIDs), Exe: slices.Clone(r.Exe), Pods: slices.Clone(r.Pods)}
}

func (r *PeerRules) clone() *PeerRules {
	if r == nil {
		return nil
	}
	return &PeerRules{UIDs: slices.Clone(r.UIDs), GIDs: slices.Clone(r.GIDs), Exe: slices.Clone(r.Exe), Pods: slices.Clone(r.Pods)}
}

// pluginPeer is an external plugin's peer as PluginInfo reports it; nil
// for a plugin that has none.
func pluginPeer(p *identity.Peer, rules *identity.Rules) *PluginPeer {
	if p == nil {
		return nil
	}
	out := &PluginPeer{Exe: p.Exe, Pod: p.Pod}
	if p.UID >= 0 {
		uid := uint32(p.UID)
		out.UID = &uid
	}
	if p.GID >= 0 {
		gid := uint32(p.GID)
		out.GID = &gid
	}
	if rules != nil {
		out.Rules = &PeerRules{UIDs: slices.Clone(rules.UIDs), GIDs: slices.Clone(rules.GIDs), Exe: slices.Clone(rules.Exe), Pods: slices.Clone(rules.Pods)}
	}
	return out
}

// PeerIdentity is what the runtime knows of a process: the pod it runs in.
// Both fields are "" for a process in no pod.
type PeerIdentity struct {
	PodNamespace, PodName string
}

// WithPeerIdentity gives nrikit the runtime's way to tell the pod a
// process runs in, for plugin names bound to pods (PeerRules.Pods).
// containerd and CRI-O answer it from the process's cgroup
// (docs/porting.md shows both). fn is called when a connection registers
// under a name bound to pods, on nrikit's goroutine, holding no lock of
// nrikit's; it must return within ctx's deadline (at most a second), must
// not call the Adaptation, and may be called concurrently. Its error, or
// its panic, refuses the registration, saying why.
func WithPeerIdentity(fn func(ctx context.Context, pid int) (PeerIdentity, error)) Option {
	return func(o *options) error {
		if fn == nil {
			return errors.New("nrikit: nil peer identity function")
		}
		o.peerIdentity = func(ctx context.Context, pid int) (string, string, error) {
			id, err := fn(ctx, pid)
			return id.PodNamespace, id.PodName, err
		}
		return nil
	}
}

// ExternalPlugins says which names may register from the socket.
type ExternalPlugins string

// The values of external_plugins.
const (
	// ExternalAny lets any name register (unless it is the runtime's own
	// plugin's, or bound to peers the connection does not match). The
	// default.
	ExternalAny ExternalPlugins = "any"
	// ExternalConfigured lets only the names that have a plugin_settings
	// entry register: "NN-name" for that index and name, a bare name for
	// that name at any index. Others are refused with ErrNotConfigured.
	ExternalConfigured ExternalPlugins = "configured"
)

// WithExternalPlugins sets which names may register from the socket;
// ExternalAny unless set.
func WithExternalPlugins(e ExternalPlugins) Option {
	return func(o *options) error {
		switch e {
		case ExternalAny, ExternalConfigured:
			o.externalPlugins = e
			return nil
		}
		return fmt.Errorf("nrikit: external_plugins: %q is not one of any, configured", string(e))
	}
}

// Why a registration from the socket is refused; the plugin reads the
// reason in its RegisterPlugin reply, the runtime in the log (a warning)
// and in Status' refused connections. ErrPluginIDTaken is the third.
var (
	// ErrPeerNotAllowed: the name is bound to peers (PeerRules) and the
	// connecting process matches none; the error names the key that did
	// not match and what the process was.
	ErrPeerNotAllowed = relay.ErrPeerNotAllowed
	// ErrNotConfigured: with ExternalConfigured, a name that has no
	// plugin_settings entry.
	ErrNotConfigured = relay.ErrNotConfigured
)

// ErrOutOfScope is wrapped by the error of a setup event that a plugin's
// reply failed by changing what PluginSettings.Allow does not let it; the
// error names the plugin, the event, the classes it changed outside its
// scope and the setting, and also matches ErrRejected. Unsolicited updates
// outside a plugin's scope are refused with it.
var ErrOutOfScope = relay.ErrOutOfScope

// allowNames is a plugin's scope as PluginInfo reports it.
func allowNames(s *scope.Set) []string {
	if s == nil {
		return nil
	}
	return s.Names()
}
