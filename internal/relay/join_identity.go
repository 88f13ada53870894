// SPDX-License-Identifier: Apache-2.0

// Who may register under a name from the socket: the runtime's own names, external_plugins, the
// operator's peer rules (internal/identity), the sync back-off.

package relay

import (
	"context"
	"errors"
	"fmt"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/identity"
	"github.com/nrikit/nrikit/internal/nri"
)

// Why a registration from the socket is refused, besides ErrPluginIDTaken
// and the sync back-off; adaptation re-exports them.
var (
	// ErrPeerNotAllowed: the operator bound the name to peers
	// (plugin_settings peer), and the connecting process matches none.
	ErrPeerNotAllowed = errors.New("nrikit: the connecting process may not register under this plugin name")
	// ErrNotConfigured: with external_plugins "configured", a name that
	// has no plugin_settings entry.
	ErrNotConfigured = errors.New(`nrikit: only names the operator configured may register from the socket (external_plugins = "configured")`)
)

// mayRegister says why the external plugin idx-name, whose peer is peer,
// may not register: its ID is the runtime's own plugin's, the name is not
// configured where only configured names may register, its peer does not
// match the name's rules, or it is in its back-off after a sync timeout.
// It resolves the peer's pod when the rules need it.
func (r *Relay) mayRegister(ctx context.Context, idx, name string, peer *identity.Peer) error {
	id := api.PluginID(idx, name)
	if err := r.registry.checkID(id); err != nil {
		return err
	}
	s, key, configured := r.cfg.settingsOf(id, name)
	if r.cfg.ConfiguredOnly && !configured {
		return fmt.Errorf("%w: %s has no entry (neither %q nor %q)", ErrNotConfigured, id, id, name)
	}
	if rules := s.Peer; rules != nil {
		if rules.NeedsPod() {
			peer.ResolvePod(ctx, r.cfg.PeerIdentity)
		}
		if err := rules.Match(*peer); err != nil {
			return fmt.Errorf("%w: %s from %s: plugin_settings.%q.peer: %w", ErrPeerNotAllowed, id, peer, key, err)
		}
	}
	return r.syncBackoff.Check(id)
}

// warnUnmatchable warns, at New, of each name bound to peers that no
// connection can match here: the OS does not tell what the rules need, or
// the runtime gives no way to tell a process's pod. Such a name cannot be
// claimed over the socket (a pre-installed plugin of that name still runs).
func (r *Relay) warnUnmatchable() {
	for key, s := range r.cfg.Settings {
		if s.Peer == nil {
			continue
		}
		if keys := s.Peer.Unmatchable(accept.PeerKnows, r.cfg.PeerIdentity != nil); len(keys) > 0 {
			r.log.WithField("plugin_settings", key).WithField("unknown", keys).
				Warn("nrikit: a plugin name is bound to what this OS or runtime cannot tell of a peer: no connection can register under it")
		}
	}
}

// logReplaced says, as a warning, that old was replaced by p, naming both
// peers: an operator should know who took a plugin's place.
func (r *Relay) logReplaced(p, old *plugin) {
	log := old.log.WithField("reason", nri.ReasonReplaced)
	if old.peer != nil {
		old.peer.Fields("replaced_", func(k string, v any) { log = log.WithField(k, v) })
	}
	if p.peer != nil {
		p.peer.Fields("new_", func(k string, v any) { log = log.WithField(k, v) })
	}
	log.Warn("nrikit: plugin replaced by a new instance")
}
