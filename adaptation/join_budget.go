// SPDX-License-Identifier: Apache-2.0

// Admission by budget: each setup event's worst case against the event budget, on every join and leave.

package adaptation

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
// CreateContainer) over the event budget.
type BudgetCheck string

// The budget checks.
const (
	// BudgetWarn admits the plugin and logs one warning naming the event,
	// its worst case and its plugins. The default.
	BudgetWarn BudgetCheck = "warn"
	// BudgetRefuse refuses the joining plugin at configuration (a
	// PluginFailed change); plugins already joined are left alone.
	BudgetRefuse BudgetCheck = "refuse"
	// BudgetOff checks nothing.
	BudgetOff BudgetCheck = "off"
)

// ErrOverBudget is why BudgetRefuse refused a plugin: with it, a setup
// event's worst case would exceed the event budget.
var ErrOverBudget = errors.New("nrikit: the plugin would push an event's worst case over the event budget")

// WithBudgetCheck sets what a plugin that would push a setup event's worst
// case over the event budget (WithEventBudget) meets; BudgetWarn unless set.
// Without an event budget nothing is checked.
func WithBudgetCheck(c BudgetCheck) Option {
	return func(o *options) error {
		switch c {
		case BudgetWarn, BudgetRefuse, BudgetOff:
			o.budgetCheck = c
			return nil
		}
		return fmt.Errorf("nrikit: budget_check: %q is not one of warn, refuse, off", string(c))
	}
}

// setupEvents are the events an event budget bounds, in event order.
var setupEvents = []api.Event{
	api.Event_RUN_POD_SANDBOX, api.Event_UPDATE_POD_SANDBOX, api.Event_CREATE_CONTAINER,
	api.Event_UPDATE_CONTAINER, api.Event_START_CONTAINER,
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

// overBudgetWith lists the setup events whose worst case exceeds the event
// budget when plugins are active.
func (a *Adaptation) overBudgetWith(plugins []*plugin) []overBudget {
	var over []overBudget
	for _, ev := range setupEvents {
		o := overBudget{ev: ev, worstCase: worstCase(ev, plugins)}
		if o.worstCase <= a.callsBudget() {
			continue
		}
		for _, p := range plugins {
			if p.subscribed(ev) {
				o.plugins = append(o.plugins, p.id)
			}
		}
		over = append(over, o)
	}
	return over
}

// checkBudget refuses an event budget the deadline reserve leaves no time
// of: every plugin would be over it.
func (o *options) checkBudget() error {
	if o.eventBudget > 0 && o.eventBudget <= o.deadlineReserve {
		return fmt.Errorf("nrikit: event_budget: must exceed deadline_reserve (%v), got %v", o.deadlineReserve, o.eventBudget)
	}
	return nil
}

// callsBudget is the time an event's plugin calls have within the event
// budget: what the deadline reserve leaves of it.
func (a *Adaptation) callsBudget() time.Duration {
	return a.opts.eventBudget - a.opts.deadlineReserve
}

// worstCase is how long ev's plugin calls may take with plugins active:
// the sum of the own timeouts of those subscribed to it, plus the slowest
// validator's for CreateContainer.
func worstCase(ev api.Event, plugins []*plugin) time.Duration {
	var sum time.Duration
	for _, p := range plugins {
		if p.subscribed(ev) {
			sum += p.timeout
		}
	}
	if ev == api.Event_CREATE_CONTAINER {
		sum += slowestTimeout(validatorsAmong(plugins)) // as an event's deadline sets it aside
	}
	return sum
}

// checksBudget tells whether joins and leaves are checked against a budget.
func (a *Adaptation) checksBudget() bool {
	return a.opts.eventBudget > 0 && a.opts.budgetCheck != BudgetOff
}

// budgetLedger holds the plugins admitted by budget that have not joined
// yet, so that plugins configuring at the same time are checked against
// each other, not only against those already active.
type budgetLedger struct {
	mu      sync.Mutex
	pending []*plugin
}

// settle forgets p's admission once it joined or failed to.
func (l *budgetLedger) settle(p *plugin) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = slices.DeleteFunc(l.pending, func(q *plugin) bool { return q == p })
}

// admitByBudget checks a configured plugin about to join against the event
// budget, counting the plugins active and those admitted before it but not
// joined yet, less an older instance it replaces: BudgetRefuse refuses it,
// BudgetWarn logs what it would exceed. An admitted plugin stays pending
// until budget.settle.
func (a *Adaptation) admitByBudget(p *plugin) error {
	if !a.checksBudget() {
		return nil
	}
	l := &a.budget
	l.mu.Lock()
	defer l.mu.Unlock()
	over := a.overBudgetWith(withJoining(a.registry.snapshot(), l.pending, p))
	if len(over) > 0 && a.opts.budgetCheck == BudgetRefuse {
		return fmt.Errorf("%w of %v (%v for plugin calls, after deadline_reserve): %s", ErrOverBudget, a.opts.eventBudget, a.callsBudget(), semicolonList(over))
	}
	if len(over) > 0 {
		a.warnOverBudget(p.log, "joins", over)
	}
	l.pending = append(l.pending, p)
	return nil
}

// withJoining is the plugins that will be active once pending and p have
// joined: one per id, the newest instance winning, in dispatch order.
func withJoining(active, pending []*plugin, p *plugin) []*plugin {
	byID := map[string]*plugin{}
	for _, list := range [][]*plugin{active, pending, {p}} {
		for _, q := range list {
			byID[q.id] = q
		}
	}
	plugins := slices.Collect(maps.Values(byID))
	slices.SortFunc(plugins, comparePlugins)
	return plugins
}

// budgetAfterLeave logs, under BudgetWarn, the events still over budget
// once a plugin left. A replaced one's successor was checked as it joined.
func (a *Adaptation) budgetAfterLeave(p *plugin, reason string) {
	if !a.checksBudget() || a.opts.budgetCheck != BudgetWarn || reason == ReasonReplaced {
		return
	}
	if over := a.overBudgetWith(a.registry.snapshot()); len(over) > 0 {
		a.warnOverBudget(p.log, "left", over)
	}
}

// warnOverBudget logs one line for a change that leaves events over budget.
func (a *Adaptation) warnOverBudget(log *logrus.Entry, change string, over []overBudget) {
	log.WithField("change", change).WithField("event_budget", a.opts.eventBudget).WithField("over", semicolonList(over)).
		Warn("nrikit: setup events' worst case exceeds the event budget")
}
