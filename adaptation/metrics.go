// SPDX-License-Identifier: Apache-2.0

// The Metrics interface and call outcomes.

package adaptation

import (
	"time"

	"github.com/nrikit/nrikit/api"
)

// Outcome is how one plugin call ended.
type Outcome string

// Outcomes reported to Metrics.
const (
	OutcomeOK       Outcome = "ok"
	OutcomeError    Outcome = "error"    // the plugin returned an error
	OutcomeTimeout  Outcome = "timeout"  // the plugin did not answer in time
	OutcomeLost     Outcome = "lost"     // the connection broke
	OutcomeCanceled Outcome = "canceled" // the caller gave up; not the plugin's fault
	OutcomeRejected Outcome = "rejected" // a validator rejected the adjustment
)

// Metrics receives measurements; implementations must be safe for concurrent
// use and fast (they are called on the event path).
type Metrics interface {
	// PluginInvoked is called once per plugin call of an event, in call
	// order; validators are called all at once, so theirs come in the order
	// they answer.
	PluginInvoked(plugin string, event api.Event, outcome Outcome, latency time.Duration)
	// AdjustmentsReturned counts what a plugin asked for: the number of
	// adjusted containers (0 or 1), container updates and evictions.
	AdjustmentsReturned(plugin string, event api.Event, adjusted, updates, evictions int)
	// PluginCount is called whenever the number of active plugins changes.
	PluginCount(n int)
}

// CallFailureMetrics is an optional extension of Metrics: a Metrics that
// also implements it learns why each plugin call that did not end ok
// failed, just before PluginInvoked reports that call. Tools that show a
// failure next to the call (nritest) need the reason, not only the outcome.
type CallFailureMetrics interface {
	PluginCallFailed(plugin string, event api.Event, outcome Outcome, err error)
}

type noopMetrics struct{}

func (noopMetrics) PluginInvoked(string, api.Event, Outcome, time.Duration) {}
func (noopMetrics) AdjustmentsReturned(string, api.Event, int, int, int)    {}
func (noopMetrics) PluginCount(int)                                         {}
