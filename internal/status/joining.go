// SPDX-License-Identifier: Apache-2.0

// The plugins and connections still in their handshake, for Status.

package status

import (
	"slices"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/wake"
)

// JoiningPlugin is a connection or plugin in its handshake: it has not
// joined yet, nor failed.
type JoiningPlugin struct {
	// Plugin is "NN-name" once known (at once for a pre-installed plugin),
	// "unregistered" for an external connection before it registered.
	Plugin string
	PID    int
	// Phase is "register", "configure" or "synchronize".
	Phase string
	Since time.Time // when the handshake began
}

// Joining is the handshakes in progress. The zero value is ready.
type Joining struct {
	mu      sync.Mutex
	entries map[*Handshake]struct{}
	changed wake.Signal // each begin, phase and end
}

// Handshake is one handshake in progress; its methods may be called on a
// nil Handshake, which records nothing.
type Handshake struct {
	set *Joining
	// Guarded by set.mu.
	info JoiningPlugin
}

// Begin records a handshake that starts now; End must be called when it is
// over.
func (s *Joining) Begin(plugin string, pid int, phase string) *Handshake {
	e := &Handshake{set: s, info: JoiningPlugin{Plugin: plugin, PID: pid, Phase: phase, Since: time.Now()}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = map[*Handshake]struct{}{}
	}
	s.entries[e] = struct{}{}
	s.changed.Broadcast()
	return e
}

// Enter moves the handshake to phase, under the plugin's ID.
func (e *Handshake) Enter(plugin, phase string) {
	if e == nil {
		return
	}
	e.set.mu.Lock()
	defer e.set.mu.Unlock()
	e.info.Plugin, e.info.Phase = plugin, phase
	e.set.changed.Broadcast()
}

// End forgets the handshake: joined or failed, it is no longer joining.
func (e *Handshake) End() {
	if e == nil {
		return
	}
	e.set.mu.Lock()
	defer e.set.mu.Unlock()
	delete(e.set.entries, e)
	e.set.changed.Broadcast()
}

// Changed is closed at the next begin, phase change or end of a handshake.
func (s *Joining) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed.Wait()
}

// List returns the handshakes in progress, oldest first; never nil.
func (s *Joining) List() []JoiningPlugin {
	s.mu.Lock()
	out := make([]JoiningPlugin, 0, len(s.entries))
	for e := range s.entries {
		out = append(out, e.info)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b JoiningPlugin) int { return a.Since.Compare(b.Since) })
	return out
}
