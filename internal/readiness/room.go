// SPDX-License-Identifier: Apache-2.0

// What a pod the gate holds needs left of its caller's deadline: room for the runtime's setup and its RunPodSandbox.

package readiness

import (
	"context"
	"fmt"
	"time"

	"github.com/nrikit/nrikit/api"
)

// room is what a pod let through needs left of its caller's deadline: the
// runtime's setup before its RunPodSandbox event (setup_reserve), the
// worst case of that event's plugin calls (the request timeouts of the
// active plugins that take it, and of the plugins still awaited, which
// have yet to join), and deadline_reserve after them.
type room struct {
	setup, calls, awaited, reserve time.Duration
}

func (r *Tracker) roomFor(awaited []Missing) room {
	rm := room{setup: r.cfg.SetupReserve, calls: r.plugins.RunPodSandboxWorstCase(), reserve: r.cfg.DeadlineReserve}
	for _, m := range awaited {
		rm.awaited += r.plugins.ExpectedTimeout(m.Name)
	}
	return rm
}

func (rm room) total() time.Duration { return rm.setup + rm.calls + rm.awaited + rm.reserve }

// String says what the room is made of, for an error or a warning.
func (rm room) String() string {
	s := fmt.Sprintf("%v: setup_reserve %v, RunPodSandbox's plugins %v", rm.total(), rm.setup, rm.calls+rm.awaited)
	if rm.awaited > 0 {
		s += fmt.Sprintf(" (%v of them for the plugins awaited)", rm.awaited)
	}
	return s + fmt.Sprintf(", deadline_reserve %v", rm.reserve)
}

// awaitBound is when a wait that began at start for the awaited plugins
// ends, and why: wait after start, or earlier when the caller's deadline
// leaves only the room the pod needs once they join.
func (r *Tracker) awaitBound(ctx context.Context, start time.Time, awaited []Missing) (time.Time, string) {
	wait := r.cfg.Wait
	bound, why := start.Add(wait), "waited "+wait.String()
	if d, ok := ctx.Deadline(); ok {
		rm := r.roomFor(awaited)
		if end := d.Add(-rm.total()); end.Before(bound) {
			bound, why = end, "the caller's deadline less "+rm.String()
		}
	}
	return bound, why
}

// inTime checks, once a pod's awaited plugins joined, that its caller's
// deadline still leaves the room it needs: a plugin may join later than
// the bound foresaw it (the bound moves as others join and leave). If not,
// the pod fails at once, before the runtime builds anything, with the
// gate's error; under "proceed" it goes on with a warning.
func (r *Tracker) inTime(ctx context.Context, pod *api.PodSandbox, required []string) error {
	d, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	rm := r.roomFor(nil)
	left := time.Until(d)
	if left >= rm.total() {
		return nil
	}
	late := make([]Missing, len(required))
	for i, name := range required {
		p, _ := r.plugins.ActiveAs(name)
		late[i] = Missing{Name: name, State: JoinedLate, Plugin: p.ID}
	}
	why := fmt.Sprintf("%v left of the caller's deadline, which needs %v", left.Round(time.Millisecond), rm)
	return r.notReady(pod, late, why, "nrikit: pod let through although its required plugins joined too late for its deadline (plugin_readiness.on_timeout = proceed)")
}
