// SPDX-License-Identifier: Apache-2.0

// A plugin's rollout, as the operator chose it: an observer, a validator run dry, a scope of pods.

package relay

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/filter"
	"github.com/nrikit/nrikit/internal/observe"
	"github.com/nrikit/nrikit/internal/ratelog"
)

// A plugin can be rolled out gradually, by the operator's settings alone
// (nothing travels on the wire):
//
//   - An observer (delivery = "observe") is never waited for. It is kept
//     out of every fan-out and of the event barrier's waits: its events go
//     through its own queue (internal/observe), setup events once they
//     succeeded, with the request as the other plugins left it, teardown
//     and notification events at their start (observe_events.go); its
//     snapshot is queued too (observe_join.go). Its replies are not applied
//     (observe_replies.go), its UpdateContainers is refused.
//   - A validator run dry (validation = "dry-run") validates through the
//     same kind of queue; its verdict is logged, counted and kept in the
//     container's record, never enforced (dryrun.go). An observer that
//     takes ValidateContainerAdjustment validates dry too.
//   - A scope of pods (filter): a pod outside it, and its containers,
//     never reach the plugin (scope.go, internal/lifecycle's Scopes).

// rollout is a plugin's rollout settings, set at its registration and
// read-only afterwards, and what they count.
type rollout struct {
	observer bool             // delivery = "observe"
	dryRun   bool             // validation = "dry-run"
	filter   *filter.Selector // its scope of pods; nil: every pod
	// queue carries an observer's calls and a dry-run validator's
	// validations; nil for other plugins.
	queue *observe.Queue

	ignored     atomic.Uint64 // adjustments, updates and evictions of an observer's replies, not applied
	validated   atomic.Uint64 // dry-run validations answered
	wouldReject atomic.Uint64 // of them, rejections
	// ignoredLog and verdictLog bound the warnings about ignored replies
	// and dry-run rejections to one a minute; scopeLog those about
	// entries out of its scope. They are the plugin ID's, shared by its
	// instances (rolloutLogs), so that one that reconnects again and again
	// warns no more often.
	ignoredLog, verdictLog, scopeLog *ratelog.Limiter
}

// rolloutLogs are the rate limits of the rollout warnings by plugin ID.
// Only plugins the operator rolled out have them, so their keys are
// bounded by the operator's settings (a bare name's, by the 100 indices)
// and the built-in plugins.
type rolloutLogs struct {
	mu sync.Mutex
	by map[string]*[3]*ratelog.Limiter
}

// of returns id's limiters: ignored replies, dry-run verdicts, scope.
func (l *rolloutLogs) of(id string) (ignored, verdict, scope *ratelog.Limiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]*[3]*ratelog.Limiter{}
	}
	logs := l.by[id]
	if logs == nil {
		logs = &[3]*ratelog.Limiter{ratelog.New(1, rolloutLogWindow), ratelog.New(1, rolloutLogWindow), ratelog.New(1, rolloutLogWindow)}
		l.by[id] = logs
	}
	return logs[0], logs[1], logs[2]
}

// DefaultObserverQueue is the events queued for one observer (or one
// validator run dry) before it overflows and is dropped.
const DefaultObserverQueue = 1024

// ObserverQueueBytes bounds the encoded requests queued for one observer.
const ObserverQueueBytes = 16 << 20

// rolloutLogWindow is the window of the rollout warnings: one a minute.
const rolloutLogWindow = time.Minute

// applyRollout gives p its rollout settings from s (p's entry of the
// operator's settings, if any) and, where it needs one, its queue.
func (r *Relay) applyRollout(p *plugin, s Settings) {
	ro := &p.rollout
	ro.observer, ro.dryRun = s.Observe, s.DryRun
	if s.Filter != nil {
		ro.filter = s.Filter // the operator's word wins over a built-in plugin's own
	}
	if ro.filter != nil || ro.observer || ro.dryRun {
		ro.ignoredLog, ro.verdictLog, ro.scopeLog = r.rolloutLogs.of(p.id)
	}
	if ro.observer || ro.dryRun {
		r.startQueue(p)
	}
}

// waitedFor tells whether the runtime waits for the plugin's answer to e:
// never for an observer's, nor for a dry-run validator's validation. The
// budget, the event's deadline and the list of validators count only those.
func (ro *rollout) waitedFor(e api.Event) bool {
	return !ro.observer && !(ro.dryRun && e == api.Event_VALIDATE_CONTAINER_ADJUSTMENT)
}

// validatesDry tells whether p's validations are queued and not enforced.
func (p *plugin) validatesDry() bool {
	return (p.rollout.dryRun || p.rollout.observer) && p.subscribed(api.Event_VALIDATE_CONTAINER_ADJUSTMENT)
}

// closeQueue ends p's queue, if it has one: what it had not delivered is
// discarded, and logged.
func (p *plugin) closeQueue() {
	if q := p.rollout.queue; q != nil {
		if n := q.Close(); n > 0 {
			p.log.WithField("undelivered", n).Info("nrikit: the plugin's queued events were discarded as it went")
		}
	}
}

// RolloutInfo is a plugin's rollout in PluginInfo.
type RolloutInfo struct {
	Observer, DryRun bool
	Filter           filter.Spec // empty: every pod
	// Queue is its queue's state; nil when it has none.
	Queue *observe.Stats
	// Overflows counts the instances of this plugin dropped because their
	// queue overflowed, since the relay was made.
	Overflows uint64
	// Ignored counts the adjustments, updates and evictions of an
	// observer's replies that were not applied.
	Ignored uint64
	// Validated and WouldReject count its dry-run validations answered,
	// and the rejections among them.
	Validated, WouldReject uint64
}

func (r *Relay) rolloutInfo(p *plugin) RolloutInfo {
	ro := &p.rollout
	info := RolloutInfo{
		Observer: ro.observer, DryRun: ro.dryRun, Filter: ro.filter.Spec(),
		Ignored: ro.ignored.Load(), Validated: ro.validated.Load(), WouldReject: ro.wouldReject.Load(),
	}
	if ro.queue != nil {
		s := ro.queue.Stats()
		info.Queue = &s
		info.Overflows = r.overflows.of(p.id)
	}
	return info
}
