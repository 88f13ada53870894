// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
)

// event is one runtime call the benchmarks make, in the order of a pod's
// lifecycle.
type event int

const (
	evRunPod event = iota
	evCreate
	evPostCreate
	evStart
	evPostStart
	evUpdate
	evPostUpdate
	evStopContainer
	evRemoveContainer
	evStopPod
	evRemovePod
)

// lifecycle is the 11 events of one pod with one container.
var lifecycle = []event{
	evRunPod, evCreate, evPostCreate, evStart, evPostStart, evUpdate, evPostUpdate,
	evStopContainer, evRemoveContainer, evStopPod, evRemovePod,
}

// method is the event's dedicated ttrpc method on the plugin service.
func (e event) method() string {
	switch e {
	case evRunPod:
		return "RunPodSandbox"
	case evCreate:
		return "CreateContainer"
	case evPostCreate:
		return "PostCreateContainer"
	case evStart:
		return "StartContainer"
	case evPostStart:
		return "PostStartContainer"
	case evUpdate:
		return "UpdateContainer"
	case evPostUpdate:
		return "PostUpdateContainer"
	case evStopContainer:
		return "StopContainer"
	case evRemoveContainer:
		return "RemoveContainer"
	case evStopPod:
		return "StopPodSandbox"
	case evRemovePod:
		return "RemovePodSandbox"
	}
	panic(fmt.Sprintf("unknown event %d", int(e)))
}

func (e event) String() string { return e.method() }

// runtimeUnderTest is one runtime side (the reference adaptation, nrikit's,
// or the floor) behind the calls the benchmarks make. Pod p and its
// container c index the workload's pods and containers.
type runtimeUnderTest interface {
	// ready is called once every plugin has registered, before any event.
	ready() error
	// do relays one event. For CreateContainer it returns the number of
	// annotations in the merged adjustment.
	do(ctx context.Context, ev event, p, c int) (int, error)
	stop()
	// stateBytes is the encoded size of the sync state as this runtime holds it.
	stateBytes() int
}
