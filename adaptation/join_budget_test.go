// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

const overBudgetLine = "nrikit: setup events' worst case exceeds the event budget"

// TestBudgetCheck: with event_budget 3s, a plugin whose 2 s timeout would
// push CreateContainer's worst case to 4 s is refused at configuration by
// "refuse", the plugin already joined staying; "warn" admits it with one
// warning line naming the event, its worst case and its plugins.
func TestBudgetCheck(t *testing.T) {
	for _, check := range []adaptation.BudgetCheck{adaptation.BudgetRefuse, adaptation.BudgetWarn} {
		t.Run(string(check), func(t *testing.T) {
			changes := newChangeLog()
			e := newEnv(t, adaptation.WithEventBudget(3*time.Second), adaptation.WithBudgetCheck(check),
				adaptation.WithPluginChanges(changes.add))
			e.preinstall("10", "first", testplugin.Config{Events: "createcontainer"})
			e.start()
			e.waitPlugins("10-first")
			if lines := e.logged(nil); countMessage(lines, overBudgetLine) != 0 {
				t.Fatalf("a plugin within the budget was warned about")
			}
			e.external("20", "second", testplugin.Config{Events: "createcontainer"})

			const over = "CreateContainer takes up to 4s (10-first, 20-second)"
			if check == adaptation.BudgetRefuse {
				got := changes.waitFor(t, "20-second", 1)
				if !strings.HasPrefix(got[0], "failed configure: ") || !strings.Contains(got[0], "over the event budget") || !strings.Contains(got[0], over) {
					t.Errorf("20-second: %q, want refused at configure naming %q", got[0], over)
				}
				e.waitPlugins("10-first")
				if _, err := createUnder(t, e.a, context.Background(), "bc"); err != nil {
					t.Errorf("creation with the joined plugin: %v", err)
				}
				return
			}
			e.waitPlugins("10-first", "20-second")
			lines := e.waitLoggedMessage(overBudgetLine)
			if len(lines) != 1 || lines[0].Data["over"] != over || lines[0].Data["plugin"] != "20-second" {
				t.Errorf("warnings %d, first %v; want one naming %q", len(lines), lines[0].Data, over)
			}
		})
	}
}

func countMessage(lines []*logrus.Entry, msg string) int {
	n := 0
	for _, l := range lines {
		if l.Message == msg {
			n++
		}
	}
	return n
}

// Two plugins configuring at the same time are checked against each other:
// each fits the budget alone, not together, so "refuse" keeps one out even
// though neither had joined when the other was checked (both wait behind
// the runtime's plugin sync block).
func TestBudgetCheckCountsPluginsJoiningTogether(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithEventBudget(3*time.Second), adaptation.WithBudgetCheck(adaptation.BudgetRefuse),
		adaptation.WithPluginChanges(changes.add))
	e.start()
	block := e.a.BlockPluginSync()
	e.external("20", "a", testplugin.Config{Events: "createcontainer"})
	e.external("30", "b", testplugin.Config{Events: "createcontainer"})

	refused := changes.waitForChange(t, adaptation.PluginFailed)
	block.Unblock()
	admitted := map[string]string{"20-a": "30-b", "30-b": "20-a"}[refused.Plugin]
	if admitted == "" || refused.Phase != "configure" || !strings.Contains(refused.Reason, "CreateContainer takes up to 4s (20-a, 30-b)") {
		t.Fatalf("refused %+v; want one of 20-a, 30-b refused at configure, naming both", refused)
	}
	e.waitPlugins(admitted)
	if got := changes.of(refused.Plugin); len(got) != 1 {
		t.Errorf("%s: changes %q, want only its refusal", refused.Plugin, got)
	}
}

// Admission compares the worst case with what the plugin calls have of the
// budget: two 2 s plugins fill a 4 s budget exactly, which the 100 ms
// deadline reserve leaves them no room for, so the second is refused.
func TestBudgetCheckLeavesTheDeadlineReserve(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithEventBudget(4*time.Second), adaptation.WithBudgetCheck(adaptation.BudgetRefuse),
		adaptation.WithPluginChanges(changes.add))
	e.preinstall("10", "first", testplugin.Config{Events: "createcontainer"})
	e.start()
	e.waitPlugins("10-first")
	e.external("20", "second", testplugin.Config{Events: "createcontainer"})
	got := changes.waitFor(t, "20-second", 1)
	if !strings.HasPrefix(got[0], "failed configure: ") || !strings.Contains(got[0], "of 4s (3.9s for plugin calls, after deadline_reserve)") {
		t.Errorf("20-second: %q, want refused for the 3.9s its calls would have", got[0])
	}
}

// Pre-installed plugins start together: each is checked against those
// admitted before it, so a boot set over the budget is not admitted whole.
// "refuse" keeps exactly one of three out; "warn" admits all three with one
// warning line.
func TestBudgetCheckPreinstalledTogether(t *testing.T) {
	for _, check := range []adaptation.BudgetCheck{adaptation.BudgetRefuse, adaptation.BudgetWarn} {
		t.Run(string(check), func(t *testing.T) {
			changes := newChangeLog()
			e := newEnv(t, adaptation.WithEventBudget(5*time.Second), adaptation.WithBudgetCheck(check),
				adaptation.WithPluginChanges(changes.add))
			for _, idx := range []string{"10", "20", "30"} {
				e.preinstall(idx, "p"+idx, testplugin.Config{Events: "createcontainer"})
			}
			e.start()
			if check == adaptation.BudgetRefuse {
				refused := changes.waitForChange(t, adaptation.PluginFailed)
				if refused.Phase != "configure" || !strings.Contains(refused.Reason, "over the event budget") {
					t.Errorf("refused %+v, want refused at configure for the budget", refused)
				}
				e.waitPlugins(slices.DeleteFunc([]string{"10-p10", "20-p20", "30-p30"}, func(id string) bool { return id == refused.Plugin })...)
				return
			}
			e.waitPlugins("10-p10", "20-p20", "30-p30")
			if n := countMessage(e.logged(nil), overBudgetLine); n != 1 {
				t.Errorf("%d warnings, want one for the plugin that went over", n)
			}
		})
	}
}
