// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
)

// A restart's gap does not flip Ready; a restart that ends without the
// plugin back does.
func TestARestartDoesNotFlipReady(t *testing.T) {
	flips := make(chan State, 16)
	f := newFixture(t, 0, notifyInto(flips))
	f.Starting()
	f.join(gateID)
	up := nextFlip(t, flips)
	done := f.Restarting(gateID)
	f.leave(gateID, "restarted")
	f.Synchronizing(gateID)()
	f.join(gateID)
	done()
	if s := f.State(); !s.Ready || !s.Since.Equal(up.Since) {
		t.Errorf("after the restart: %+v, want ready since %v", s, up.Since)
	}
	done = f.Restarting(gateID)
	f.leave(gateID, "restarted")
	if !f.State().Ready {
		t.Error("not ready during the restart")
	}
	f.Failed(gateID, nri.PhaseStart, "no such file")
	done()
	if s := nextFlip(t, flips); s.Ready || len(s.Missing) != 1 || s.Missing[0].State != Failed {
		t.Errorf("flip once the restart failed: %+v, want not ready, gate failed", s)
	}
	f.Deliveries().Wait()
	if len(flips) != 0 {
		t.Errorf("%d flips more, want none", len(flips))
	}
}

// A restart of one plugin does not hide another required plugin's loss.
func TestARestartDoesNotHideAnotherLoss(t *testing.T) {
	f := newFixture(t, 0, requiring(gateName, "other"))
	f.Starting()
	f.join(gateID)
	f.join("20-other")
	if !f.State().Ready {
		t.Fatal("not ready with both plugins active")
	}
	done := f.Restarting(gateID)
	defer done()
	f.leave(gateID, "restarted")
	f.leave("20-other", "connection lost")
	if s := f.State(); s.Ready || len(s.Missing) != 2 {
		t.Errorf("State %+v, want not ready, both missing", s)
	}
}

// Ready starts false, since New, and flips at Starting when nothing is
// required.
func TestNothingRequiredIsReadyOnceStarted(t *testing.T) {
	before := time.Now()
	f := newFixture(t, 0, func(c *Config) { c.Validator = nil })
	if s := f.State(); s.Ready || s.Since.Before(before) || len(s.Required) != 0 || len(s.Missing) != 0 {
		t.Errorf("State before Starting: %+v, want not ready, nothing missing", s)
	}
	f.Starting()
	if s := f.State(); !s.Ready {
		t.Errorf("State once started: %+v, want ready", s)
	}
}

// A connection that failed before it registered tells no story, and a
// plugin that joined forgets its own.
func TestStoriesAreKeptByPlugin(t *testing.T) {
	f := newFixture(t, 0)
	f.Starting()
	f.Failed(nri.Unregistered, nri.PhaseRegister, "bad hello")
	if m := f.State().Missing; len(m) != 1 || m[0].State != NeverConnected {
		t.Errorf("missing %+v, want gate never connected", m)
	}
	f.Failed(gateID, nri.PhaseRegister, "bad hello")
	f.join(gateID)
	f.plugins.remove(gateID) // gone before its departure is told
	if m := f.missing([]string{gateName}); len(m) != 1 || m[0].State != NeverConnected {
		t.Errorf("missing %+v, want the failure forgotten once it joined", m)
	}
}

// The history keeps the last 1,024 plugins, the oldest forgotten first.
func TestHistoryIsBounded(t *testing.T) {
	var h pluginHistory
	h.init()
	for i := range historyKept + 10 {
		id := time.Duration(i).String() + "-p"
		h.record(id, Missing{Plugin: id, State: Failed})
	}
	if len(h.byID) != historyKept || len(h.order) != historyKept {
		t.Errorf("history holds %d (%d in order), want %d", len(h.byID), len(h.order), historyKept)
	}
	if _, ok := h.byID["0s-p"]; ok {
		t.Error("the oldest is still kept")
	}
	h.forget(h.order[5])
	if len(h.byID) != historyKept-1 || len(h.order) != historyKept-1 {
		t.Errorf("after forget: %d (%d in order)", len(h.byID), len(h.order))
	}
}
