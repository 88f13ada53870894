// SPDX-License-Identifier: Apache-2.0

// Await: holding a pod's creation until its required plugins are active, within a bound.

package readiness

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// maxWaiters bounds the pods waiting at once; beyond it a pod meets the
// bound at once.
const maxWaiters = 1024

// Await holds a pod's creation until its required plugins are active: it
// is AwaitPlugins (see its doc in adaptation). It returns nil at once,
// without allocating, when the gate is off, when the pod is exempt or
// tolerates missing plugins, or when its required plugins are active.
// Otherwise it waits, woken by plugins joining, until they are all active
// or until the bound (awaitBound), a sync back-off that outlasts it, the
// 1,024 waiting pods, or Stopping; then it fails with ErrPluginsNotReady
// telling each missing plugin's story, or under Proceed lets the pod
// through with a warning. A pod whose plugins joined while it waited also
// fails so, at once, when its caller's deadline no longer leaves the room
// its setup and RunPodSandbox need (inTime). It returns ctx's error when
// ctx is cancelled.
func (r *Tracker) Await(ctx context.Context, pod *api.PodSandbox) error {
	required, err := r.requirementOf(pod)
	if err != nil || len(required) == 0 {
		return err
	}
	if !r.isRunning() {
		return fmt.Errorf("%w: pod %s/%s: NRI is not started, or is stopping", ErrPluginsNotReady, pod.GetNamespace(), pod.GetName())
	}
	if r.allActive(required) {
		return nil
	}
	return r.awaitPlugins(ctx, pod, required)
}

// WatchWaiters has fn called as each pod starts waiting, for tests; call
// it before Starting.
func (r *Tracker) WatchWaiters(fn func()) { r.waiting = fn }

func (r *Tracker) isRunning() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

// awaitPlugins is Await's wait.
func (r *Tracker) awaitPlugins(ctx context.Context, pod *api.PodSandbox, required []string) error {
	start := time.Now()
	if !r.enter() {
		return r.atBound(pod, required, fmt.Sprintf("%d pods wait already", maxWaiters))
	}
	defer r.leave()
	if r.waiting != nil {
		r.waiting()
	}
	timeout := time.NewTimer(time.Hour)
	defer timeout.Stop()
	hint := time.NewTimer(time.Hour)
	defer hint.Stop()
	for {
		changed, running := r.watch()
		if !running {
			return fmt.Errorf("%w: pod %s/%s: NRI is stopping", ErrPluginsNotReady, pod.GetNamespace(), pod.GetName())
		}
		missing := r.missing(required)
		if len(missing) == 0 {
			return r.inTime(ctx, pod, required)
		}
		// The bound moves as plugins join and leave: it is checked anew on
		// each change.
		bound, why := r.awaitBound(ctx, start, missing)
		if backoffOutlasts(missing, bound) {
			return r.atBound(pod, required, "a sync back-off outlasts the wait")
		}
		if !time.Now().Before(bound) {
			return r.atBound(pod, required, why)
		}
		timeout.Reset(time.Until(bound))
		if due := r.hintDue(missing); !due.IsZero() {
			hint.Reset(time.Until(due))
		}
		select {
		case <-changed:
		case <-hint.C:
			r.hint(missing)
		case <-timeout.C:
		case <-ctx.Done():
			cause := context.Cause(ctx)
			return nri.WithCode(fmt.Errorf("nrikit: pod %s/%s: waiting for required plugins: %w", pod.GetNamespace(), pod.GetName(), cause), nri.ContextCode(cause))
		}
	}
}

// enter counts a waiter; false when there are too many.
func (r *Tracker) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiters >= maxWaiters {
		return false
	}
	r.waiters++
	return true
}

func (r *Tracker) leave() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiters--
}

// watch returns the channel the next change closes, and whether NRI runs.
func (r *Tracker) watch() (<-chan struct{}, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed, r.running
}

func backoffOutlasts(missing []Missing, bound time.Time) bool {
	for _, m := range missing {
		if m.State == SyncBackoff && m.BackoffUntil.After(bound) {
			return true
		}
	}
	return false
}

// atBound is what a pod whose required plugins are missing at the bound
// gets: ErrPluginsNotReady, or under "proceed" nil with a warning.
func (r *Tracker) atBound(pod *api.PodSandbox, required []string, why string) error {
	missing := r.missing(required)
	if len(missing) == 0 {
		return nil
	}
	return r.notReady(pod, missing, why, "nrikit: pod let through without its required plugins (plugin_readiness.on_timeout = proceed)")
}

// notReady fails the pod for its missing plugins, or under "proceed" logs
// the warning and returns nil.
func (r *Tracker) notReady(pod *api.PodSandbox, missing []Missing, why, warning string) error {
	r.mu.Lock()
	r.wantLocked(pod.GetNamespace()+"/"+pod.GetName(), missing)
	r.mu.Unlock()
	if r.cfg.Proceed {
		r.cfg.Log.WithFields(logrus.Fields{"pod": pod.GetNamespace() + "/" + pod.GetName(), "missing": stories(missing), "why": why}).
			Warn(warning)
		return nil
	}
	return fmt.Errorf("%w: pod %s/%s (%s): %s", ErrPluginsNotReady, pod.GetNamespace(), pod.GetName(), why, stories(missing))
}
