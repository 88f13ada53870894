// SPDX-License-Identifier: Apache-2.0

// A change in the set of plugins.

package nri

import "time"

// ChangeKind says what happened to a plugin.
type ChangeKind string

// The kinds of change.
const (
	Joined  ChangeKind = "joined"  // synchronized, takes events
	Left    ChangeKind = "left"    // had joined, and is gone
	Failed  ChangeKind = "failed"  // never joined: failed to start, register, configure or synchronize
	Skipped ChangeKind = "skipped" // a file of the plugin path that is not started
)

// Change is one change in the set of plugins.
type Change struct {
	Change ChangeKind
	// Plugin is "NN-name"; a skipped file's name; Unregistered for an
	// external connection that failed before registering.
	Plugin   string
	Kind     string // Kind.String()
	Revision string // the protocol revision it registered on; "" if none
	// Phase is what it was doing when it failed or left: a phase of
	// joining or an event's name; "" when it left while idle.
	Phase  string
	Reason string
	PID    int
	Time   time.Time
	// Output is the last lines a launched plugin wrote, in Failed and Left
	// changes.
	Output []OutputLine
	// LastError is, in a Left change, the instance's last failed call; nil
	// if none failed. Status loses the instance once it is gone: its last
	// error stays with its leaving.
	LastError *CallError
}

// CallError is a plugin's failed call, as Status keeps its last one.
type CallError struct {
	Event   string // as api.Event.Name() names it
	Outcome Outcome
	// Error is the error's text, cut to 512 bytes (then ending in
	// " [cut]"), with control and other non-printable characters and
	// invalid UTF-8 written as Go escapes.
	Error string
	Time  time.Time
}

// RefusedConnection tells an external connection that failed before or at
// registration: any local client can cause one at will, and its identity,
// if any, is the peer's claim.
func (c Change) RefusedConnection() bool {
	return c.Change == Failed && c.Kind == External.String() && (c.Phase == "" || c.Phase == PhaseRegister)
}

// OutputLine is one line a launched plugin wrote.
type OutputLine struct {
	Stream string // "stdout" or "stderr"
	Text   string
}
