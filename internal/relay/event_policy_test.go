// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"testing"

	"github.com/nrikit/nrikit/internal/nri"
)

// TestDecideMirrorsTheFailureTable checks decide against the package doc's
// failure table, cell by cell: for each class and failure, what each policy
// (none, fail_request, keep_connected) makes of it.
func TestDecideMirrorsTheFailureTable(t *testing.T) {
	type cell = decision
	var (
		failsKept     = cell{fails: true, keep: true}
		failsDropped  = cell{fails: true, keep: false}
		goesOnKept    = cell{fails: false, keep: true}
		goesOnDropped = cell{fails: false, keep: false}
	)
	policies := [3]nri.FailurePolicy{{}, {FailRequest: true}, {KeepConnected: true}}
	table := []struct {
		class eventClass
		f     failure
		want  [3]cell // none, fail_request, keep_connected
	}{
		// Setup: an error fails the event and the plugin stays; a timeout or
		// loss drops it and the event goes on, unless fail_request.
		{classSetup, failError, [3]cell{failsKept, failsKept, failsKept}},
		{classSetup, failRejected, [3]cell{failsKept, failsKept, failsKept}},
		{classSetup, failTimeout, [3]cell{goesOnDropped, failsDropped, goesOnKept}},
		{classSetup, failLost, [3]cell{goesOnDropped, failsDropped, goesOnDropped}},
		// Teardown: never blocks; a timeout drops the plugin unless
		// keep_connected; fail_request never applies.
		{classTeardown, failError, [3]cell{goesOnKept, goesOnKept, goesOnKept}},
		{classTeardown, failRejected, [3]cell{goesOnKept, goesOnKept, goesOnKept}},
		{classTeardown, failTimeout, [3]cell{goesOnDropped, goesOnDropped, goesOnKept}},
		{classTeardown, failLost, [3]cell{goesOnDropped, goesOnDropped, goesOnDropped}},
		// Notification: as teardown.
		{classNotification, failError, [3]cell{goesOnKept, goesOnKept, goesOnKept}},
		{classNotification, failRejected, [3]cell{goesOnKept, goesOnKept, goesOnKept}},
		{classNotification, failTimeout, [3]cell{goesOnDropped, goesOnDropped, goesOnKept}},
		{classNotification, failLost, [3]cell{goesOnDropped, goesOnDropped, goesOnDropped}},
		// Validation: any failure fails the creation; the validator is
		// dropped on a timeout unless keep_connected.
		{classValidation, failError, [3]cell{failsKept, failsKept, failsKept}},
		{classValidation, failRejected, [3]cell{failsKept, failsKept, failsKept}},
		{classValidation, failTimeout, [3]cell{failsDropped, failsDropped, failsKept}},
		{classValidation, failLost, [3]cell{failsDropped, failsDropped, failsDropped}},
	}
	for _, row := range table {
		for i, pol := range policies {
			if got := decide(row.class, row.f, pol, false, false); got != row.want[i] {
				t.Errorf("%v, failure %d, policy %+v: decide = %+v, want %+v", row.class, row.f, pol, got, row.want[i])
			}
		}
	}

	// A timeout that ended the plugin's instance (a WASM guest stopped at
	// its deadline) drops it despite keep_connected.
	if got := decide(classTeardown, failTimeout, nri.FailurePolicy{KeepConnected: true}, true, false); got != goesOnDropped {
		t.Errorf("timeout that ended the instance: decide = %+v, want dropped", got)
	}
	// A request cut short leaves the connection out of step: the plugin is
	// dropped even after an answered error, and whatever keep_connected says.
	if got := decide(classSetup, failError, nri.FailurePolicy{KeepConnected: true}, false, true); got != failsDropped {
		t.Errorf("error after a request cut short: decide = %+v, want fails and dropped", got)
	}
	if got := decide(classNotification, failTimeout, nri.FailurePolicy{KeepConnected: true}, false, true); got != goesOnDropped {
		t.Errorf("timeout of a request cut short: decide = %+v, want dropped", got)
	}
}
