// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
)

// Why the calls of an event did not end ok, written under the row of the
// calls they belong to (the step's own, or another event's made on the
// way, such as the validation of a CreateContainer), in both reports.

// timeoutHint follows a timed-out call's reason: which flag sets the limit.
const timeoutHint = " (the limit is --request-timeout)"

// callReasons writes why each call that did not end ok failed, one line
// each after indent, unless the event's own error (which names the plugin)
// already says it.
func callReasons(w io.Writer, indent string, calls []Call, eventErr string) {
	for _, c := range calls {
		if c.Outcome == adaptation.OutcomeOK || explains(eventErr, c) {
			continue
		}
		fmt.Fprintf(w, "%s%s %s: %s\n", indent, c.Plugin, c.Outcome, callReason(c))
	}
}

// callReason is why c did not end ok, with the timeout hint for a timeout.
func callReason(c Call) string {
	reason := orNoReason(c.Error)
	if c.Outcome == adaptation.OutcomeTimeout {
		reason += timeoutHint
	}
	return reason
}

// explains tells whether the event's error is about call c: it holds the
// call's error, or names its plugin as nrikit's errors do.
func explains(eventErr string, c Call) bool {
	return eventErr != "" && (c.Error != "" && strings.Contains(eventErr, c.Error) || strings.Contains(eventErr, "plugin "+c.Plugin+": "))
}

// errorGroup is the index of the group whose call the event's error is
// about; -1 if none is (the error is then written after them all).
func errorGroup(groups []callGroup, eventErr string) int {
	if eventErr == "" {
		return -1
	}
	for i, g := range groups {
		for _, c := range g.calls {
			if c.Outcome != adaptation.OutcomeOK && explains(eventErr, c) {
				return i
			}
		}
	}
	return -1
}

// eventError is the event's error line, with the timeout hint when a
// timed-out call caused it.
func eventError(eventErr string, calls []Call) string {
	for _, c := range calls {
		if c.Outcome == adaptation.OutcomeTimeout && explains(eventErr, c) {
			return "error: " + eventErr + timeoutHint
		}
	}
	return "error: " + eventErr
}

// The phases of joining that limitHint tells apart, as
// adaptation.PluginChange.Phase names them.
const (
	phaseStart       = "start"
	phaseRegister    = "register"
	phaseSynchronize = "synchronize"
)

// limitHint names the flag that sets the limit a plugin ran into during
// phase, going by nrikit's reason; "" when the reason is no timeout.
func limitHint(phase, reason string) string {
	if !strings.Contains(reason, "timed out") && !strings.Contains(reason, "timeout") && !strings.Contains(reason, "did not register within") {
		return ""
	}
	switch phase {
	case "", phaseStart:
		return ""
	case phaseRegister:
		return " (the limit is --registration-timeout)"
	case phaseSynchronize:
		return " (the limit is --sync-timeout)"
	}
	return timeoutHint // Configure, Shutdown and every event call
}
