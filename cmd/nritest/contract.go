// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/filter"
)

// The lifecycle contract, checked on what one plugin received on the wire:
// it learns of each pod and container once as created (in a snapshot or by
// RunPodSandbox / CreateContainer), then at most one stop and one removal,
// in that order, and nothing after the removal; it gets no event for an
// object it never saw (unless it does not take that kind's creation
// events); every event it takes reaches it for what it knows; everything it
// saw created it sees removed (if it takes removals), with the stop first
// (if it takes stops).

// objState is what one plugin instance has seen of one pod or container.
type objState struct {
	container                 bool
	created, stopped, removed bool
}

// contractRun holds what the checks need about the script's run.
type contractRun struct {
	steps  []cstep
	events []EventReport
	// active lists the plugins active before each step.
	active []map[string]bool
	// live lists the runtime's pods and containers before each step; liveAtStart before the script.
	live        [][]string
	liveAtStart []string
	// objCase is the case in which an object is torn down.
	objCase map[string]string
	// podOf is the pod of each container.
	podOf map[string]string
	// pods are the workload's pods, and scopes the plugins' scopes of pods
	// (--filter): a plugin is held to the contract on the pods of its
	// scope, and hears nothing of the others.
	pods   map[string]*api.PodSandbox
	scopes map[string]*filter.Selector
}

// outOfScope tells whether the pod or container obj is outside plugin's
// scope.
func (r *contractRun) outOfScope(plugin, obj string) bool {
	sel, ok := r.scopes[plugin]
	if !ok {
		_, name, _ := strings.Cut(plugin, "-") // a bare name's entry
		sel = r.scopes[name]
	}
	if sel == nil {
		return false
	}
	pod := obj
	if p, ok := r.podOf[obj]; ok {
		pod = p
	}
	return !sel.Matches(r.pods[pod])
}

func (r *contractRun) caseOf(step int) string {
	if step < 0 || step >= len(r.steps) {
		return caseJoined
	}
	return r.steps[step].kase
}

// liveBefore is the runtime's objects before step.
func (r *contractRun) liveBefore(step int) []string {
	if step < 0 || step >= len(r.live) {
		return r.liveAtStart
	}
	return r.live[step]
}

// findings collects the reasons by case.
type findings map[string][]string

func (f findings) add(kase, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(f[kase], msg) {
		f[kase] = append(f[kase], msg)
	}
}

// checkInstance replays one instance's calls against the contract. The
// instance answers for the steps before until, when its successor joined.
func (r *contractRun) checkInstance(id string, in *instance, until int, last bool, f findings) {
	if len(in.calls) == 0 {
		return
	}
	mask := in.calls[0].events
	objs := map[string]*objState{}
	joinStep := in.calls[0].step
	r.checkSnapshot(id, in, joinStep, objs, f)
	next := 0
	for step := joinStep + 1; step <= until; step++ {
		// Calls before this step (the join, the previous step) come first.
		for ; next < len(in.calls) && in.calls[next].step < step; next++ {
			r.checkCall(id, in.calls[next], mask, objs, f)
		}
		if step < until {
			r.checkDelivered(id, in, step, mask, objs, f)
		}
	}
	if last {
		r.checkRemoved(mask, objs, f)
	}
}

// checkSnapshot compares what the instance's Synchronize listed with what
// the runtime had when it joined, and marks those objects created.
func (r *contractRun) checkSnapshot(plugin string, in *instance, joinStep int, objs map[string]*objState, f findings) {
	kase := caseJoined
	if joinStep >= 0 {
		kase = r.caseOf(joinStep)
	}
	var listed []string
	for _, c := range in.calls {
		if c.method != "Synchronize" {
			continue
		}
		for i, id := range append(slices.Clone(c.pods), c.ctrs...) {
			if slices.Contains(listed, id) {
				f.add(kase, "Synchronize listed %s twice", id)
			}
			listed = append(listed, id)
			objs[id] = &objState{container: i >= len(c.pods), created: true}
		}
	}
	want := slices.DeleteFunc(slices.Clone(r.liveBefore(joinStep)), func(id string) bool { return r.outOfScope(plugin, id) })
	for _, id := range want {
		if !slices.Contains(listed, id) {
			f.add(kase, "its Synchronize snapshot lacks %s, which existed when it joined", id)
		}
	}
	for _, id := range listed {
		if !slices.Contains(want, id) {
			f.add(kase, "its Synchronize snapshot lists %s, which did not exist when it joined", id)
		}
		if r.outOfScope(plugin, id) {
			f.add(kase, "its Synchronize snapshot lists %s, outside its scope (--filter)", id)
		}
	}
}

// checkCall applies one received event to the contract.
func (r *contractRun) checkCall(plugin string, c wireCall, mask api.EventMask, objs map[string]*objState, f findings) {
	if c.event == api.Event_UNKNOWN || c.unimplemented || c.event == api.Event_VALIDATE_CONTAINER_ADJUSTMENT {
		return // not an event, or a probe that StateChange follows
	}
	kase := r.caseOf(c.step)
	ev := c.event.Name()
	id, creation := c.podID, api.Event_RUN_POD_SANDBOX
	if r.outOfScope(plugin, c.podID) {
		f.add(kase, "%s of pod %s, outside its scope (--filter)", ev, c.podID)
	}
	if c.event.IsContainerEvent() {
		id, creation = c.ctrID, api.Event_CREATE_CONTAINER
		if p := objs[c.podID]; p != nil && p.removed {
			f.add(kase, "%s of %s after the removal of its pod %s", ev, id, c.podID)
		}
	}
	o := objs[id]
	switch c.event {
	case api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER:
		if o != nil && o.created {
			f.add(kase, "%s of %s, which it already knew: created twice", ev, id)
		}
		objs[id] = &objState{container: c.event.IsContainerEvent(), created: true}
		return
	}
	if o == nil {
		if mask.Has(creation) {
			f.add(kase, "%s of %s, which it never saw created", ev, id)
		}
		o = &objState{container: c.event.IsContainerEvent(), created: true}
		objs[id] = o
	}
	if o.removed {
		f.add(kase, "%s of %s after its removal", ev, id)
		return
	}
	switch c.event {
	case api.Event_STOP_POD_SANDBOX, api.Event_STOP_CONTAINER:
		if o.stopped {
			f.add(kase, "%s of %s twice", ev, id)
		}
		o.stopped = true
	case api.Event_REMOVE_POD_SANDBOX, api.Event_REMOVE_CONTAINER:
		stop := api.Event_STOP_POD_SANDBOX
		if c.event == api.Event_REMOVE_CONTAINER {
			stop = api.Event_STOP_CONTAINER
		}
		if !o.stopped && mask.Has(stop) {
			f.add(kase, "%s of %s without %s first", ev, id, stop.Name())
		}
		o.removed = true
	}
}

// checkDelivered checks that the instance got the step's own event if it
// takes it and knows the step's object, alive.
func (r *contractRun) checkDelivered(id string, in *instance, step int, mask api.EventMask, objs map[string]*objState, f findings) {
	s := r.steps[step]
	if s.restart || s.expectFail || r.events[step].Result != resultOK || !r.active[step][id] || !mask.Has(s.event) || r.outOfScope(id, s.id) {
		return
	}
	o := objs[s.id]
	switch s.event {
	case api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER:
		if o != nil {
			return // it learned of it otherwise; a duplicate shows as such
		}
	default:
		if o == nil || o.removed {
			return // not its business
		}
		if s.event.IsContainerEvent() {
			if p := objs[r.podOf[s.id]]; p == nil || p.removed {
				return
			}
		}
	}
	if (s.event == api.Event_STOP_CONTAINER || s.event == api.Event_STOP_POD_SANDBOX) && o.stopped {
		return
	}
	for _, c := range in.calls {
		if c.step == step && c.event == s.event && !c.unimplemented && (c.ctrID == s.id || c.podID == s.id && !c.event.IsContainerEvent()) {
			return
		}
	}
	f.add(s.kase, "never got %s of %s, an event it takes, for a %s it knew", s.event.Name(), s.id, kindOf(s.event))
}

// checkRemoved: at the end, everything it saw created it saw removed.
func (r *contractRun) checkRemoved(mask api.EventMask, objs map[string]*objState, f findings) {
	ids := make([]string, 0, len(objs))
	for id := range objs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		o := objs[id]
		remove := api.Event_REMOVE_POD_SANDBOX
		if o.container {
			remove = api.Event_REMOVE_CONTAINER
		}
		if o.removed || !mask.Has(remove) {
			continue
		}
		kase := r.objCase[id]
		if kase == "" {
			kase = caseRemoveNoStop
		}
		f.add(kase, "saw %s created but never got its %s", id, remove.Name())
	}
}

func kindOf(ev api.Event) string {
	if ev.IsContainerEvent() {
		return "container"
	}
	return "pod"
}
