// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// Updates a plugin asks for on its own (UpdateContainers), outside any
// event. nrikit hands them to the runtime's UpdateFn without saying which
// plugin sent them, so nritest records what arrived, when, and whether it
// could take it.

// Unsolicited update results.
const (
	updateAccepted = "accepted"
	updateFailed   = "FAILED"
)

// UnsolicitedUpdate is one container update a plugin sent on its own.
type UnsolicitedUpdate struct {
	// During is what the runtime was doing: "#5 PostStartContainer app",
	// "after #5 PostStartContainer app", "start-up", "linger", "stopping".
	During      string   `json:"during"`
	ContainerID string   `json:"container_id"`
	Container   string   `json:"container,omitempty"` // its name, when known
	Changes     []string `json:"changes"`             // "cpu.shares=512", "memory.limit=256Mi"
	// IgnoreFailure is the plugin's ignore_failure flag. A container that
	// does not exist fails the update all the same, as in containerd.
	IgnoreFailure bool   `json:"ignore_failure,omitempty"`
	Result        string `json:"result"`           // accepted or FAILED
	Reason        string `json:"reason,omitempty"` // why it failed
}

// Phases of the run outside the lifecycle's steps, for UnsolicitedUpdate.During.
const (
	phaseStartUp  = "start-up"
	phaseLinger   = "linger"
	phaseStopping = "stopping"
)

// setPhase says what the runtime is doing, for the updates that arrive
// meanwhile.
func (s *store) setPhase(phase string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phase = phase
}

// update is the runtime's UpdateFn. An update of a container the runtime
// has is accepted, though not applied (nothing runs for real); one of a
// container it does not have (never created, or removed) fails. Every
// update is recorded.
func (s *store) update(_ context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var failed []*api.ContainerUpdate
	for _, u := range updates {
		r := s.take(u)
		if r.Result != updateAccepted {
			failed = append(failed, u)
		}
		s.updates = append(s.updates, r)
	}
	return failed, nil
}

// take accepts an update of a container the runtime has and fails one of a
// container it does not have, and says so. The caller holds s.mu.
func (s *store) take(u *api.ContainerUpdate) UnsolicitedUpdate {
	id := u.GetContainerId()
	r := UnsolicitedUpdate{
		During: s.phase, ContainerID: id, Changes: resourceList(id, u.GetLinux().GetResources()),
		IgnoreFailure: u.GetIgnoreFailure(), Result: updateAccepted,
	}
	if i := slices.IndexFunc(s.ctrs, func(c *api.Container) bool { return c.GetId() == id }); i >= 0 {
		r.Container = s.ctrs[i].GetName()
		return r
	}
	r.Result, r.Reason = updateFailed, "no such container"
	if name, ok := s.removed[id]; ok {
		r.Container, r.Reason = name, "container removed"
	}
	return r
}

// unsolicited returns the updates recorded so far.
func (s *store) unsolicited() []UnsolicitedUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.updates)
}

// resourcesText describes resources on one line, "nothing" when empty.
func resourcesText(id string, res *api.LinuxResources) string {
	return listText(resourceList(id, res))
}

// resourceList lists the resources set, "cpu.shares=512" each.
func resourceList(id string, res *api.LinuxResources) []string {
	b := &items{ctr: id}
	b.resources("", res)
	out := make([]string, len(b.list))
	for i, it := range b.list {
		out[i] = it.text
	}
	return out
}

// listText joins a list for the text report, "nothing" when empty.
func listText(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, ", ")
}

// updateRows writes one row per update, under the header
// DURING, CONTAINER, RESULT, CHANGES.
func updateRows(w io.Writer, updates []UnsolicitedUpdate) {
	fmt.Fprintln(w, "DURING\tCONTAINER\tRESULT\tCHANGES")
	for _, u := range updates {
		ctr := u.ContainerID
		if u.Container != "" {
			ctr += " (" + u.Container + ")"
		}
		result := u.Result
		if u.Reason != "" {
			result += ": " + u.Reason
		}
		changes := listText(u.Changes)
		if u.IgnoreFailure {
			changes += " (ignore_failure)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", u.During, ctr, result, changes)
	}
}

// failedUpdates counts the updates that were not accepted.
func failedUpdates(updates []UnsolicitedUpdate) int {
	n := 0
	for _, u := range updates {
		if u.Result != updateAccepted {
			n++
		}
	}
	return n
}
