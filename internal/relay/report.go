// SPDX-License-Identifier: Apache-2.0

// Telling the rest of nrikit that a plugin joined or left: Config.Changes, the readiness gate, the budget.

package relay

import (
	"context"
	"time"

	"github.com/nrikit/nrikit/internal/nri"
)

// announce hands c, stamped now, to the caller's Changes. An error is a
// panic of the runtime's callback, which it recovered.
func (r *Relay) announce(c nri.Change) error {
	c.Time = time.Now()
	if r.cfg.Changes == nil {
		return nil
	}
	return r.cfg.Changes(c)
}

func changeOf(kind nri.ChangeKind, p *plugin, phase, reason string) nri.Change {
	return nri.Change{Change: kind, Plugin: p.id, Kind: p.kind.String(), Revision: p.revisionName(), Phase: phase, Reason: reason, PID: p.conn.PID()}
}

// reportJoined reports that p has joined. It is called right after p entered
// the dispatch list, so nothing can report p's leaving before; reportLeft
// still waits for it, since the leaving may be decided on another goroutine.
// A panic in the callback on that report drops p: what p is called may
// have caused it, and a plugin the runtime's observer does not know of
// should not take its events.
func (r *Relay) reportJoined(p *plugin) {
	r.readiness.Joined(p.id)
	p.stats.Joined(time.Now())
	err := r.announce(changeOf(nri.Joined, p, "", ""))
	close(p.joinReported)
	if pe := panicIn(err); pe != nil {
		p.panicked.CompareAndSwap(nil, pe)
		r.drop(context.Background(), p, "", failLost) // at registration, in no call of the runtime
	}
}

// reportLeft reports that p, which had joined, is gone.
func (r *Relay) reportLeft(p *plugin, phase, reason string) {
	<-p.joinReported
	if reason != nri.ReasonReplaced { // its successor was checked against the budget as it joined
		r.budget.Left(p.log)
	}
	change := changeOf(nri.Left, p, phase, reason)
	change.Output = p.conn.Output()
	change.LastError = p.stats.LastError()
	r.readiness.Left(p.id, phase, reason)
	r.announce(change)
}
