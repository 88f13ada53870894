// SPDX-License-Identifier: Apache-2.0

package status

import (
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/internal/nri"
)

func change(kind nri.ChangeKind, plugin string) nri.Change {
	return nri.Change{Change: kind, Plugin: plugin, Kind: nri.Preinstalled.String()}
}

func refusedConnection(i int) nri.Change {
	return nri.Change{Change: nri.Failed, Plugin: nri.Unregistered, Kind: nri.External.String(), Phase: nri.PhaseRegister, PID: i}
}

func TestRecentChangesKeepsTheLast(t *testing.T) {
	var r RecentChanges
	const added = MaxRecentChanges + 12
	for i := range added {
		r.Add(change(nri.Joined, fmt.Sprintf("%02d-p", i)))
	}
	changes, refused := r.List()
	if len(changes) != MaxRecentChanges {
		t.Fatalf("%d changes kept, want %d", len(changes), MaxRecentChanges)
	}
	for i, c := range changes {
		if want := fmt.Sprintf("%02d-p", added-MaxRecentChanges+i); c.Plugin != want {
			t.Errorf("change %d is %s's, want %s's (the last ones, oldest first)", i, c.Plugin, want)
		}
	}
	if refused.Total != 0 || len(refused.Last) != 0 {
		t.Errorf("refused connections %+v, want none", refused)
	}
}

// A flood of refused connections, which any local client can cause, is kept
// apart: it cannot push a plugin's departure out.
func TestRecentChangesKeepsRefusedApart(t *testing.T) {
	var r RecentChanges
	r.Add(change(nri.Left, "10-crashed"))
	// An external plugin that failed after registering is not refused: its
	// identity is known.
	late := nri.Change{Change: nri.Failed, Plugin: "20-ext", Kind: nri.External.String(), Phase: nri.PhaseSynchronize}
	r.Add(late)
	const flood = 10 * MaxRecentChanges
	for i := range flood {
		r.Add(refusedConnection(i))
	}
	changes, refused := r.List()
	if len(changes) != 2 || changes[0].Plugin != "10-crashed" || changes[1].Plugin != "20-ext" {
		t.Errorf("changes %+v, want the departure and the late failure alone", changes)
	}
	if refused.Total != flood || len(refused.Last) != MaxRecentRefused {
		t.Fatalf("refused %d, %d kept; want %d, %d", refused.Total, len(refused.Last), flood, MaxRecentRefused)
	}
	for i, c := range refused.Last {
		if want := flood - MaxRecentRefused + i; c.PID != want {
			t.Errorf("refused connection %d is pid %d, want %d (the last ones, oldest first)", i, c.PID, want)
		}
	}
}

func TestRecentChangesListIsACopy(t *testing.T) {
	var r RecentChanges
	changes, refused := r.List()
	if changes == nil || refused.Last == nil {
		t.Errorf("empty lists %v, %v; want empty, not nil (JSON: [])", changes, refused.Last)
	}
	r.Add(change(nri.Joined, "10-a"))
	changes, _ = r.List()
	changes[0].Plugin = "changed"
	if again, _ := r.List(); again[0].Plugin != "10-a" {
		t.Errorf("a change to the list reached the changes kept: %+v", again)
	}
}
