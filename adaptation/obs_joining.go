// SPDX-License-Identifier: Apache-2.0

// The plugins and connections still in their handshake, for Status.

package adaptation

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
	Plugin string `json:"plugin"`
	PID    int    `json:"pid,omitempty"`
	// Phase is "register", "configure" or "synchronize".
	Phase string    `json:"phase"`
	Since time.Time `json:"since"` // when the handshake began
}

// joiningSet is the handshakes in progress.
type joiningSet struct {
	mu      sync.Mutex
	entries map[*joinEntry]struct{}
	changed wake.Signal // each begin, phase and end
}

// joinEntry is one handshake in progress; its methods may be called on a
// nil entry, which records nothing.
type joinEntry struct {
	set *joiningSet
	// Guarded by set.mu.
	info JoiningPlugin
}

// begin records a handshake that starts now; end must be called when it is
// over.
func (s *joiningSet) begin(plugin string, pid int, phase string) *joinEntry {
	e := &joinEntry{set: s, info: JoiningPlugin{Plugin: plugin, PID: pid, Phase: phase, Since: time.Now()}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = map[*joinEntry]struct{}{}
	}
	s.entries[e] = struct{}{}
	s.changed.Broadcast()
	return e
}

// enter moves the handshake to phase, under the plugin's ID.
func (e *joinEntry) enter(plugin, phase string) {
	if e == nil {
		return
	}
	e.set.mu.Lock()
	defer e.set.mu.Unlock()
	e.info.Plugin, e.info.Phase = plugin, phase
	e.set.changed.Broadcast()
}

func (e *joinEntry) end() {
	if e == nil {
		return
	}
	e.set.mu.Lock()
	defer e.set.mu.Unlock()
	delete(e.set.entries, e)
	e.set.changed.Broadcast()
}

// changes is closed at the next begin, phase change or end of a handshake.
func (s *joiningSet) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed.Wait()
}

// list returns the handshakes in progress, oldest first.
func (s *joiningSet) list() []JoiningPlugin {
	s.mu.Lock()
	out := make([]JoiningPlugin, 0, len(s.entries))
	for e := range s.entries {
		out = append(out, e.info)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b JoiningPlugin) int { return a.Since.Compare(b.Since) })
	return out
}
