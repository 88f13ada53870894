// SPDX-License-Identifier: Apache-2.0

// Admission by budget's public side (BudgetCheck), and its wiring to internal/admission's Budget.

package adaptation

import (
	"fmt"

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

// newBudget checks joins and leaves against o's event budget, counting the
// plugins active in r.
func newBudget(o *options, r *registry) *admission.Budget[*plugin] {
	s := admission.BudgetSettings{Event: o.eventBudget, Reserve: o.deadlineReserve, Check: admission.BudgetCheck(o.budgetCheck)}
	return admission.NewBudget(s, r.snapshot, comparePlugins)
}
