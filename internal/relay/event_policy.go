// SPDX-License-Identifier: Apache-2.0

// The event policy table (class of every event) and decide, the failure table as code.

package relay

import (
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// eventClass groups events by what a failing plugin may do to them.
type eventClass int

const (
	// classSetup: a plugin error fails the operation and stops the fan-out.
	classSetup eventClass = iota
	// classTeardown: never blocks; every subscribed plugin gets the event.
	classTeardown
	// classNotification: never blocks, as teardown.
	classNotification
	// classValidation: any failure or rejection fails container creation.
	classValidation
)

func (c eventClass) String() string {
	return [...]string{"setup", "teardown", "notification", "validation"}[c]
}

// canFail tells whether a plugin failure can fail the runtime's operation.
func (c eventClass) canFail() bool { return c == classSetup || c == classValidation }

// eventPolicy is one row of the event policy table.
type eventPolicy struct {
	class eventClass
	// stateChange marks the nine events that plugins built before NRI v0.12
	// only take through StateChange.
	stateChange bool
	// evolving marks events whose request later plugins see changed by
	// earlier plugins' replies.
	evolving bool
}

// policies is the event policy table (the package doc's "Failure policy"). Adding an event means
// adding a row here and a method in events.go.
var policies = map[api.Event]eventPolicy{
	api.Event_RUN_POD_SANDBOX:               {class: classSetup, stateChange: true},
	api.Event_UPDATE_POD_SANDBOX:            {class: classSetup},
	api.Event_CREATE_CONTAINER:              {class: classSetup, evolving: true},
	api.Event_UPDATE_CONTAINER:              {class: classSetup, evolving: true},
	api.Event_START_CONTAINER:               {class: classSetup, stateChange: true},
	api.Event_STOP_CONTAINER:                {class: classTeardown},
	api.Event_STOP_POD_SANDBOX:              {class: classTeardown, stateChange: true},
	api.Event_REMOVE_CONTAINER:              {class: classTeardown, stateChange: true},
	api.Event_REMOVE_POD_SANDBOX:            {class: classTeardown, stateChange: true},
	api.Event_POST_CREATE_CONTAINER:         {class: classNotification, stateChange: true},
	api.Event_POST_START_CONTAINER:          {class: classNotification, stateChange: true},
	api.Event_POST_UPDATE_CONTAINER:         {class: classNotification, stateChange: true},
	api.Event_POST_UPDATE_POD_SANDBOX:       {class: classNotification, stateChange: true},
	api.Event_VALIDATE_CONTAINER_ADJUSTMENT: {class: classValidation},
}

func policyOf(e api.Event) eventPolicy {
	p, ok := policies[e]
	if !ok {
		panic("nrikit: no policy for event " + e.String())
	}
	return p
}

// decision is what the failure table says about one failed plugin call.
type decision struct{ fails, keep bool }

// decide is the package doc's failure table, row by row. f is never
// failCanceled (the caller's own end blames no plugin). ended: the timeout
// ended the plugin's instance (a WASM guest stopped at its deadline);
// outOfStep: a request cut short left the connection unusable.
func decide(class eventClass, f failure, pol nri.FailurePolicy, ended, outOfStep bool) decision {
	answered := f == failError || f == failRejected // column "Plugin returns an error"
	keep := !outOfStep && (answered || f == failTimeout && pol.KeepConnected && !ended)
	switch class {
	case classSetup: // an error fails it; a timeout or loss only with fail_request
		return decision{fails: answered || pol.FailRequest, keep: keep}
	case classValidation: // any failure fails the creation
		return decision{fails: true, keep: keep}
	default: // teardown, notification: never block
		return decision{keep: keep}
	}
}
