// SPDX-License-Identifier: Apache-2.0

// An observer's replies are not applied: what they ask for is counted and, once a minute, logged.

package relay

import (
	"fmt"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
)

type (
	adjustingReply interface {
		GetAdjust() *api.ContainerAdjustment
	}
	updatingReply interface {
		GetUpdate() []*api.ContainerUpdate
	}
	evictingReply interface {
		GetEvict() []*api.ContainerEviction
	}
)

// ignoreReply counts what an observer's reply to ev asked for (an
// adjustment, updates, evictions), none of which is applied, and warns
// about it at most once a minute.
func (r *Relay) ignoreReply(p *plugin, ev api.Event, rsp any) {
	adjusted, updates, evictions := 0, 0, 0
	if a, ok := rsp.(adjustingReply); ok && a.GetAdjust() != nil && encodedSize(a.GetAdjust()) > 0 {
		adjusted = 1
	}
	if u, ok := rsp.(updatingReply); ok {
		updates = len(u.GetUpdate())
	}
	if e, ok := rsp.(evictingReply); ok {
		evictions = len(e.GetEvict())
	}
	r.ignoreChanges(p, ev.Name(), adjusted, updates, evictions)
}

// ignoreChanges counts, and logs at a rate, the changes an observer's
// reply asked for.
func (r *Relay) ignoreChanges(p *plugin, call string, adjusted, updates, evictions int) {
	n := adjusted + updates + evictions
	if n == 0 {
		return
	}
	p.rollout.ignored.Add(uint64(n))
	if log, ok := p.rollout.ignoredLog.AllowEntry(p.log); ok {
		log.WithFields(logrus.Fields{"event": call, "adjustment": adjusted == 1, "updates": updates, "evictions": evictions}).
			Warn("nrikit: an observer's reply is not applied (delivery = \"observe\")")
	}
}

// refuseObserverUpdates refuses an observer's UpdateContainers: nothing it
// asks for is applied.
func refuseObserverUpdates(p *plugin, n int) error {
	if !p.rollout.observer {
		return nil
	}
	p.rollout.ignored.Add(uint64(n))
	return fmt.Errorf("nrikit: UpdateContainers refused: plugin %s is an observer (delivery = \"observe\"), whose changes are never applied", p.id)
}
