// SPDX-License-Identifier: Apache-2.0

// Admission by budget: each setup event's worst case against the event budget, on every join and leave.

package admission

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
)

// BudgetCheck is what a plugin meets that would push a setup event's worst
// case (the sum of its plugins' timeouts, plus the slowest validator's for
// CreateContainer) over the event budget. adaptation's BudgetCheck has the
// same values.
type BudgetCheck string

// The budget checks.
const (
	// BudgetWarn admits the plugin and logs one warning naming the event,
	// its worst case and its plugins.
	BudgetWarn BudgetCheck = "warn"
	// BudgetRefuse refuses the joining plugin (Admit fails); plugins
	// already joined are left alone.
	BudgetRefuse BudgetCheck = "refuse"
	// BudgetOff checks nothing.
	BudgetOff BudgetCheck = "off"
)

// BudgetSettings are the operator's settings a Budget checks against.
type BudgetSettings struct {
	// Event is the event budget; 0 sets none, and nothing is checked.
	Event time.Duration
	// Reserve is the deadline reserve: what an event leaves the runtime
	// after its last plugin call, so not the plugin calls' to take.
	Reserve time.Duration
	Check   BudgetCheck
}

// ErrOverBudget is why BudgetRefuse refused a plugin: with it, a setup
// event's worst case would exceed the event budget. adaptation re-exports
// it.
var ErrOverBudget = errors.New("nrikit: the plugin would push an event's worst case over the event budget")

// setupEvents are the events an event budget bounds, in event order.
var setupEvents = []api.Event{
	api.Event_RUN_POD_SANDBOX, api.Event_UPDATE_POD_SANDBOX, api.Event_CREATE_CONTAINER,
	api.Event_UPDATE_CONTAINER, api.Event_START_CONTAINER,
}

// Budget checks plugins joining and leaving against the event budget. Its
// ledger holds the plugins admitted that have not joined yet, so that
// plugins configuring at the same time are checked against each other, not
// only against those already active.
type Budget[P Plugin] struct {
	settings BudgetSettings
	active   func() []P       // the plugins active now
	order    func(a, b P) int // dispatch order

	mu      sync.Mutex
	pending []P // admitted, not joined yet
}

// NewBudget returns a Budget with settings s. active lists the plugins
// active now (it is called under the Budget's lock, so that a plugin
// cannot join and settle unseen between the two); order is their dispatch
// order.
func NewBudget[P Plugin](s BudgetSettings, active func() []P, order func(a, b P) int) *Budget[P] {
	return &Budget[P]{settings: s, active: active, order: order}
}

// overBudget is one setup event whose worst case exceeds the budget.
type overBudget struct {
	ev        api.Event
	worstCase time.Duration
	plugins   []string
}

func (o overBudget) String() string {
	return fmt.Sprintf("%s takes up to %v (%s)", o.ev.Name(), o.worstCase, strings.Join(o.plugins, ", "))
}

// overList is the texts of over, "; " between them.
func overList(over []overBudget) string {
	texts := make([]string, len(over))
	for i, o := range over {
		texts[i] = o.String()
	}
	return strings.Join(texts, "; ")
}

// overBudgetWith lists the setup events whose worst case exceeds the event
// budget when plugins are active.
func (b *Budget[P]) overBudgetWith(plugins []P) []overBudget {
	var over []overBudget
	for _, ev := range setupEvents {
		o := overBudget{ev: ev, worstCase: WorstCase(ev, plugins)}
		if o.worstCase <= b.callsBudget() {
			continue
		}
		for _, p := range plugins {
			if p.Takes(ev) {
				o.plugins = append(o.plugins, p.ID())
			}
		}
		over = append(over, o)
	}
	return over
}

// callsBudget is the time an event's plugin calls have within the event
// budget: what the deadline reserve leaves of it.
func (b *Budget[P]) callsBudget() time.Duration {
	return b.settings.Event - b.settings.Reserve
}

// checks tells whether joins and leaves are checked against a budget.
func (b *Budget[P]) checks() bool {
	return b.settings.Event > 0 && b.settings.Check != BudgetOff
}

// Settle forgets p's admission once it joined or failed to.
func (b *Budget[P]) Settle(p P) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = slices.DeleteFunc(b.pending, func(q P) bool { return q == p })
}

// Admit checks a configured plugin about to join against the event budget,
// counting the plugins active and those admitted before it but not joined
// yet, less an older instance it replaces: BudgetRefuse refuses it,
// BudgetWarn logs what it would exceed with log. An admitted plugin stays
// pending until Settle.
func (b *Budget[P]) Admit(p P, log *logrus.Entry) error {
	if !b.checks() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	over := b.overBudgetWith(b.withJoining(b.active(), b.pending, p))
	if len(over) > 0 && b.settings.Check == BudgetRefuse {
		return fmt.Errorf("%w of %v (%v for plugin calls, after deadline_reserve): %s", ErrOverBudget, b.settings.Event, b.callsBudget(), overList(over))
	}
	if len(over) > 0 {
		b.warn(log, "joins", over)
	}
	b.pending = append(b.pending, p)
	return nil
}

// withJoining is the plugins that will be active once pending and p have
// joined: one per id, the newest instance winning, in dispatch order.
func (b *Budget[P]) withJoining(active, pending []P, p P) []P {
	byID := map[string]P{}
	for _, list := range [][]P{active, pending, {p}} {
		for _, q := range list {
			byID[q.ID()] = q
		}
	}
	plugins := slices.Collect(maps.Values(byID))
	slices.SortFunc(plugins, b.order)
	return plugins
}

// Left logs, under BudgetWarn, the events still over budget once a plugin
// left, with log. The caller does not call it for a replaced plugin: its
// successor was checked as it joined.
func (b *Budget[P]) Left(log *logrus.Entry) {
	if !b.checks() || b.settings.Check != BudgetWarn {
		return
	}
	if over := b.overBudgetWith(b.active()); len(over) > 0 {
		b.warn(log, "left", over)
	}
}

// warn logs one line for a change that leaves events over budget.
func (b *Budget[P]) warn(log *logrus.Entry, change string, over []overBudget) {
	log.WithField("change", change).WithField("event_budget", b.settings.Event).WithField("over", overList(over)).
		Warn("nrikit: setup events' worst case exceeds the event budget")
}
