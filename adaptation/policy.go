package adaptation

import "github.com/nrikit/nrikit/api"

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
}

// policies is the event policy table (README: "What happens when a plugin fails"). Adding an event means
// adding a row here and a method in events.go.
var policies = map[api.Event]eventPolicy{
	api.Event_RUN_POD_SANDBOX:               {classSetup, true},
	api.Event_UPDATE_POD_SANDBOX:            {classSetup, false},
	api.Event_CREATE_CONTAINER:              {classSetup, false},
	api.Event_UPDATE_CONTAINER:              {classSetup, false},
	api.Event_START_CONTAINER:               {classSetup, true},
	api.Event_STOP_CONTAINER:                {classTeardown, false},
	api.Event_STOP_POD_SANDBOX:              {classTeardown, true},
	api.Event_REMOVE_CONTAINER:              {classTeardown, true},
	api.Event_REMOVE_POD_SANDBOX:            {classTeardown, true},
	api.Event_POST_CREATE_CONTAINER:         {classNotification, true},
	api.Event_POST_START_CONTAINER:          {classNotification, true},
	api.Event_POST_UPDATE_CONTAINER:         {classNotification, true},
	api.Event_POST_UPDATE_POD_SANDBOX:       {classNotification, true},
	api.Event_VALIDATE_CONTAINER_ADJUSTMENT: {classValidation, false},
}

func policyOf(e api.Event) eventPolicy {
	p, ok := policies[e]
	if !ok {
		panic("nrikit: no policy for event " + e.String())
	}
	return p
}
