// SPDX-License-Identifier: Apache-2.0

// The event budget and the deadline reserve (WithEventBudget, WithDeadlineReserve), and what a
// plugin meets that would push an event over the budget (BudgetCheck).

package adaptation

import (
	"fmt"
	"time"

	"github.com/nrikit/nrikit/internal/admission"
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
var ErrOverBudget = admission.ErrOverBudget

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

// checkBudget refuses an event budget the deadline reserve leaves no time
// of: every plugin would be over it.
func (o *options) checkBudget() error {
	if o.eventBudget > 0 && o.eventBudget <= o.deadlineReserve {
		return fmt.Errorf("nrikit: event_budget: must exceed deadline_reserve (%v), got %v", o.deadlineReserve, o.eventBudget)
	}
	return nil
}

// DefaultDeadlineReserve is the time an event with a deadline leaves to the
// runtime after its last plugin call.
const DefaultDeadlineReserve = 100 * time.Millisecond

// WithEventBudget sets NRI's share of one setup event: no event's plugin
// calls run past its start (when the runtime calls the event method, so a
// wait for a joining plugin's synchronization counts) plus d, less the
// deadline reserve, even when the caller's deadline is later or absent. 0,
// the default, sets none; New refuses one that does not exceed the deadline
// reserve. Joining plugins are checked against what it leaves their calls
// (WithBudgetCheck).
func WithEventBudget(d time.Duration) Option {
	return nonNegativeDuration("event_budget", d, func(o *options) { o.eventBudget = d })
}

// WithDeadlineReserve sets the time an event with a deadline (the caller's,
// or the event budget) leaves to the runtime after its last plugin call;
// DefaultDeadlineReserve unless set.
func WithDeadlineReserve(d time.Duration) Option {
	return nonNegativeDuration("deadline_reserve", d, func(o *options) { o.deadlineReserve = d })
}

func nonNegativeDuration(key string, d time.Duration, set func(*options)) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("nrikit: %s: must not be negative, got %v", key, d)
		}
		set(o)
		return nil
	}
}
