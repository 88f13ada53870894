// SPDX-License-Identifier: Apache-2.0

// Tests of admission by budget and of an event's worst case, on plugins of the test's own.

package admission

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/nrikit/nrikit/api"
)

// testPlugin is a plugin as admission sees it. Two instances of one plugin
// (a replaced one and its successor) share an id.
type testPlugin struct {
	id      string
	events  []api.Event
	timeout time.Duration
}

func (p *testPlugin) ID() string              { return p.id }
func (p *testPlugin) Takes(ev api.Event) bool { return slices.Contains(p.events, ev) }
func (p *testPlugin) Timeout() time.Duration  { return p.timeout }
func byID(a, b *testPlugin) int               { return strings.Compare(a.id, b.id) }
func creates(id string, t time.Duration) *testPlugin {
	return &testPlugin{id: id, events: []api.Event{api.Event_CREATE_CONTAINER}, timeout: t}
}

// budgetOf is a Budget of 1s with 100ms reserved (900ms for plugin calls)
// over the plugins *active points to.
func budgetOf(check BudgetCheck, active *[]*testPlugin) *Budget[*testPlugin] {
	s := BudgetSettings{Event: time.Second, Reserve: 100 * time.Millisecond, Check: check}
	return NewBudget(s, func() []*testPlugin { return *active }, byID)
}

func newLog() (*logrus.Entry, *test.Hook) {
	logger, hook := test.NewNullLogger()
	return logrus.NewEntry(logger), hook
}

const overBudgetLine = "nrikit: setup events' worst case exceeds the event budget"

// TestBudgetRefuseNamesEventsAndPlugins: under BudgetRefuse a plugin that
// would push an event over the budget is refused with ErrOverBudget, the
// error naming each event over it, its worst case and its plugins in
// dispatch order; an event within the budget is not named.
func TestBudgetRefuseNamesEventsAndPlugins(t *testing.T) {
	active := []*testPlugin{
		{id: "30-c", events: []api.Event{api.Event_CREATE_CONTAINER, api.Event_START_CONTAINER}, timeout: 500 * time.Millisecond},
		{id: "40-d", events: []api.Event{api.Event_RUN_POD_SANDBOX}, timeout: 100 * time.Millisecond},
	}
	b := budgetOf(BudgetRefuse, &active)
	log, hook := newLog()
	joining := &testPlugin{id: "20-b", events: []api.Event{api.Event_CREATE_CONTAINER, api.Event_START_CONTAINER, api.Event_RUN_POD_SANDBOX}, timeout: 500 * time.Millisecond}
	err := b.Admit(joining, log)
	want := "nrikit: the plugin would push an event's worst case over the event budget of 1s (900ms for plugin calls, after deadline_reserve): " +
		"CreateContainer takes up to 1s (20-b, 30-c); StartContainer takes up to 1s (20-b, 30-c)"
	if !errors.Is(err, ErrOverBudget) || err.Error() != want {
		t.Fatalf("Admit over budget: %v\nwant %s", err, want)
	}
	if len(hook.AllEntries()) != 0 {
		t.Errorf("a refusal logged %d lines, want none (the caller reports it)", len(hook.AllEntries()))
	}
	if len(b.pending) != 0 {
		t.Errorf("a refused plugin is pending: %d", len(b.pending))
	}
}

// TestBudgetWarnAdmits: under BudgetWarn a plugin over the budget is
// admitted, with one warning naming the change and the events over it.
func TestBudgetWarnAdmits(t *testing.T) {
	active := []*testPlugin{creates("10-a", 600*time.Millisecond)}
	b := budgetOf(BudgetWarn, &active)
	log, hook := newLog()
	joining := creates("20-b", 600*time.Millisecond)
	if err := b.Admit(joining, log); err != nil {
		t.Fatalf("Admit under BudgetWarn: %v, want admitted", err)
	}
	entries := hook.AllEntries()
	if len(entries) != 1 || entries[0].Message != overBudgetLine || entries[0].Level != logrus.WarnLevel {
		t.Fatalf("logged %v, want one warning %q", entries, overBudgetLine)
	}
	if got, want := entries[0].Data, (logrus.Fields{"change": "joins", "event_budget": time.Second, "over": "CreateContainer takes up to 1.2s (10-a, 20-b)"}); !fieldsEqual(got, want) {
		t.Errorf("warning's fields %v, want %v", got, want)
	}
	if !slices.Equal(b.pending, []*testPlugin{joining}) {
		t.Errorf("pending %v, want the admitted plugin", b.pending)
	}
}

func fieldsEqual(got, want logrus.Fields) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestBudgetCountsPluginsConfiguringTogether: a plugin admitted but not
// joined yet counts against the next one; once settled (it failed to join)
// it no longer does.
func TestBudgetCountsPluginsConfiguringTogether(t *testing.T) {
	var active []*testPlugin
	b := budgetOf(BudgetRefuse, &active)
	log, _ := newLog()
	first, second := creates("10-a", 600*time.Millisecond), creates("20-b", 600*time.Millisecond)
	if err := b.Admit(first, log); err != nil {
		t.Fatalf("first plugin: %v", err)
	}
	if err := b.Admit(second, log); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("second plugin while the first is pending: %v, want ErrOverBudget", err)
	}
	b.Settle(first)
	if err := b.Admit(second, log); err != nil {
		t.Fatalf("second plugin once the first settled: %v, want admitted", err)
	}
	if !slices.Equal(b.pending, []*testPlugin{second}) {
		t.Errorf("pending %v, want only the second plugin", b.pending)
	}
}

// TestBudgetReplacedInstanceCountedOnce: a new instance of an active plugin
// (same id) is counted instead of the old one, not besides it.
func TestBudgetReplacedInstanceCountedOnce(t *testing.T) {
	active := []*testPlugin{creates("10-a", 600*time.Millisecond)}
	b := budgetOf(BudgetRefuse, &active)
	log, _ := newLog()
	if err := b.Admit(creates("10-a", 700*time.Millisecond), log); err != nil {
		t.Fatalf("a new instance of an active plugin: %v, want admitted (700ms, within 900ms)", err)
	}
	if err := b.Admit(creates("10-a", 800*time.Millisecond), log); err != nil {
		t.Fatalf("a newer instance while one is pending: %v, want admitted (800ms, within 900ms)", err)
	}
}

// TestBudgetLeft: under BudgetWarn, a plugin leaving while events are still
// over budget is logged; under BudgetRefuse, or within budget, it is not.
func TestBudgetLeft(t *testing.T) {
	active := []*testPlugin{creates("10-a", 600*time.Millisecond), creates("20-b", 600*time.Millisecond)}
	for _, tt := range []struct {
		check  BudgetCheck
		active []*testPlugin
		lines  int
	}{
		{BudgetWarn, active, 1},
		{BudgetWarn, active[:1], 0},
		{BudgetRefuse, active, 0},
		{BudgetOff, active, 0},
	} {
		b := budgetOf(tt.check, &tt.active)
		log, hook := newLog()
		b.Left(log)
		entries := hook.AllEntries()
		if len(entries) != tt.lines {
			t.Errorf("%s, %d active: %d lines, want %d", tt.check, len(tt.active), len(entries), tt.lines)
			continue
		}
		if tt.lines == 1 && (entries[0].Message != overBudgetLine || entries[0].Data["change"] != "left") {
			t.Errorf("%s: logged %q %v, want %q with change=left", tt.check, entries[0].Message, entries[0].Data, overBudgetLine)
		}
	}
}

// TestBudgetChecksNothing: without an event budget, or under BudgetOff,
// every plugin is admitted and none is pending.
func TestBudgetChecksNothing(t *testing.T) {
	active := []*testPlugin{creates("10-a", time.Hour)}
	for _, s := range []BudgetSettings{{Check: BudgetRefuse}, {Event: time.Second, Check: BudgetOff}} {
		b := NewBudget(s, func() []*testPlugin { return active }, byID)
		log, hook := newLog()
		if err := b.Admit(creates("20-b", time.Hour), log); err != nil || len(hook.AllEntries()) != 0 || len(b.pending) != 0 {
			t.Errorf("%+v: Admit %v, %d lines, %d pending; want nothing checked", s, err, len(hook.AllEntries()), len(b.pending))
		}
	}
}

// TestWorstCase: an event's worst case is the sum of the timeouts of the
// plugins that take it, plus, for CreateContainer only, the slowest
// validator's.
func TestWorstCase(t *testing.T) {
	plugins := []*testPlugin{
		creates("10-a", 300*time.Millisecond),
		{id: "20-v", events: []api.Event{api.Event_VALIDATE_CONTAINER_ADJUSTMENT}, timeout: 200 * time.Millisecond},
		{id: "30-w", events: []api.Event{api.Event_VALIDATE_CONTAINER_ADJUSTMENT, api.Event_START_CONTAINER}, timeout: 500 * time.Millisecond},
	}
	if got := WorstCase(api.Event_CREATE_CONTAINER, plugins); got != 800*time.Millisecond {
		t.Errorf("CreateContainer: %v, want 800ms (300ms, and the slowest validator's 500ms)", got)
	}
	if got := WorstCase(api.Event_START_CONTAINER, plugins); got != 500*time.Millisecond {
		t.Errorf("StartContainer: %v, want 500ms (no validator's)", got)
	}
	if got := ValidatorsAmong(plugins); !slices.Equal(got, plugins[1:]) {
		t.Errorf("ValidatorsAmong: %v, want 20-v and 30-w in order", got)
	}
	if got := SlowestTimeout[*testPlugin](nil); got != 0 {
		t.Errorf("SlowestTimeout of none: %v, want 0", got)
	}
}
