// SPDX-License-Identifier: Apache-2.0

// AwaitPlugins: holding a pod's creation until its required plugins are active, within a bound.

package adaptation

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/admission"
)

// maxReadinessWaiters bounds the pods waiting at once; beyond it a pod
// meets the bound at once.
const maxReadinessWaiters = 1024

// AwaitPlugins holds a pod's creation until its required plugins are
// active: the default validator's required_plugins and those its
// pod-scoped required-plugins annotation adds. The runtime calls it at the
// start of RunPodSandbox, before it takes its NRI lock or a BlockPluginSync
// block, never under a lock its SyncFn takes: a plugin joins only once
// SyncFn has run, so a wait under that lock would wait out its bound.
//
// It returns nil at once, without allocating, when the gate is off
// (plugin_readiness.wait is 0), when the pod's namespace is exempt or the
// pod tolerates missing plugins (the pod-scoped
// tolerate_missing_plugins_annotation says "true"), or when its required
// plugins are active. Otherwise it waits, woken by plugins joining, until
// they are all active, until wait has passed, until what is left to ctx's
// deadline is only what the pod's RunPodSandbox needs in it
// (deadline_reserve, plus the sum of the request timeouts of the active
// plugins that take RunPodSandbox), or until Stop. At that bound, with
// on_timeout "fail" it returns an error wrapping ErrPluginsNotReady that
// tells each missing plugin's story, and with "proceed" it logs a warning
// and returns nil (the pod is counted in Readiness.Proceeded if its
// RunPodSandbox too goes on without them). A missing plugin whose sync
// back-off outlasts the bound meets the bound at once, as does a pod beyond
// 1,024 waiting ones. It fails at once before Start and once Stop began
// (Stop ends the waits), and returns ctx's error when ctx is cancelled.
//
// RunPodSandbox checks the pod's required plugins again, so a plugin lost
// between AwaitPlugins and RunPodSandbox, or one that does not answer the
// pod's RunPodSandbox, fails the pod as well.
func (a *Adaptation) AwaitPlugins(ctx context.Context, pod *api.PodSandbox) error {
	r := &a.readiness
	required, err := r.requirementOf(pod)
	if err != nil || len(required) == 0 {
		return err
	}
	if !r.isRunning() {
		return fmt.Errorf("%w: pod %s/%s: NRI is not started, or is stopping", ErrPluginsNotReady, pod.GetNamespace(), pod.GetName())
	}
	if a.allActive(required) {
		return nil
	}
	return a.awaitPlugins(ctx, pod, required)
}

func (r *readinessTracker) isRunning() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

// awaitPlugins is AwaitPlugins' wait.
func (a *Adaptation) awaitPlugins(ctx context.Context, pod *api.PodSandbox, required []string) error {
	r := &a.readiness
	start := time.Now()
	if !r.enter() {
		return a.atBound(pod, required, fmt.Sprintf("%d pods wait already", maxReadinessWaiters))
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
		missing := a.missingPlugins(required)
		if len(missing) == 0 {
			return nil
		}
		// The bound moves as plugins join and leave: it is checked anew on
		// each change.
		bound, why := a.awaitBound(ctx, start)
		if backoffOutlasts(missing, bound) {
			return a.atBound(pod, required, "a sync back-off outlasts the wait")
		}
		if !time.Now().Before(bound) {
			return a.atBound(pod, required, why)
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
			return fmt.Errorf("nrikit: pod %s/%s: waiting for required plugins: %w", pod.GetNamespace(), pod.GetName(), context.Cause(ctx))
		}
	}
}

// awaitBound is when a wait that began at start ends, and why: wait after
// start, or earlier when the caller's deadline is nearer. The runtime's
// RunPodSandbox follows within that deadline, and the pod's wait leaves it
// what its event deadline needs: deadline_reserve, and the worst case of
// its fan-out (the own timeouts of the active plugins that take it), so
// that a pod let through still reaches its plugins.
func (a *Adaptation) awaitBound(ctx context.Context, start time.Time) (time.Time, string) {
	wait := a.readiness.opts.wait
	bound, why := start.Add(wait), "waited "+wait.String()
	if d, ok := ctx.Deadline(); ok {
		room := a.opts.deadlineReserve + admission.WorstCase(api.Event_RUN_POD_SANDBOX, a.registry.snapshot())
		if end := d.Add(-room); end.Before(bound) {
			bound, why = end, "the caller's deadline less "+room.String()+" for RunPodSandbox's plugins and deadline_reserve"
		}
	}
	return bound, why
}

// enter counts a waiter; false when there are too many.
func (r *readinessTracker) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiters >= maxReadinessWaiters {
		return false
	}
	r.waiters++
	return true
}

func (r *readinessTracker) leave() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiters--
}

// watch returns the channel the next change closes, and whether NRI runs.
func (r *readinessTracker) watch() (<-chan struct{}, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed, r.running
}

func backoffOutlasts(missing []MissingPlugin, bound time.Time) bool {
	for _, m := range missing {
		if m.State == MissingSyncBackoff && m.BackoffUntil.After(bound) {
			return true
		}
	}
	return false
}

// atBound is what a pod whose required plugins are missing at the bound
// gets: ErrPluginsNotReady, or under "proceed" nil with a warning.
func (a *Adaptation) atBound(pod *api.PodSandbox, required []string, why string) error {
	missing := a.missingPlugins(required)
	if len(missing) == 0 {
		return nil
	}
	return a.readiness.notReady(pod, missing, why, "nrikit: pod let through without its required plugins (plugin_readiness.on_timeout = proceed)")
}

// notReady fails the pod for its missing plugins, or under "proceed" logs
// the warning and returns nil.
func (r *readinessTracker) notReady(pod *api.PodSandbox, missing []MissingPlugin, why, warning string) error {
	if r.opts.onTimeout == ReadinessProceed {
		r.a.log.WithFields(logrus.Fields{"pod": pod.GetNamespace() + "/" + pod.GetName(), "missing": semicolonList(missing), "why": why}).
			Warn(warning)
		return nil
	}
	return fmt.Errorf("%w: pod %s/%s (%s): %s", ErrPluginsNotReady, pod.GetNamespace(), pod.GetName(), why, semicolonList(missing))
}
