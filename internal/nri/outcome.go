// SPDX-License-Identifier: Apache-2.0

// How one plugin call ended, and a plugin's failure policy.

package nri

// Outcome is how one plugin call ended.
type Outcome string

// The outcomes of a call.
const (
	OutcomeOK       Outcome = "ok"
	OutcomeError    Outcome = "error"    // the plugin returned an error
	OutcomeTimeout  Outcome = "timeout"  // the plugin did not answer in time
	OutcomeLost     Outcome = "lost"     // the connection broke
	OutcomeCanceled Outcome = "canceled" // the caller gave up, or the event's deadline came; not the plugin's fault
	OutcomeRejected Outcome = "rejected" // a validator rejected the adjustment
)

// Outcomes lists the outcomes in the order counters keep them.
var Outcomes = [...]Outcome{OutcomeOK, OutcomeError, OutcomeTimeout, OutcomeLost, OutcomeCanceled, OutcomeRejected}

// FailurePolicy says what a plugin's timeout or lost connection means: with
// FailRequest a setup event fails, with KeepConnected a plugin that only
// timed out is kept.
type FailurePolicy struct {
	FailRequest   bool
	KeepConnected bool
}
