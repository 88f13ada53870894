// SPDX-License-Identifier: Apache-2.0

// Synchronizing a joining plugin: SyncFn's callback, the snapshot, and joining the dispatch list.

package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// synchronizeAndJoin sends the runtime's state to p and makes it active.
// The runtime's SyncFn is called holding no lock of ours, since it may take
// the lock that the runtime holds while calling the event methods; the
// event barrier is taken only when SyncFn calls back with its lists, and is
// held until p has joined, so that no event falls between p's snapshot and
// its first live event. Events relayed between SyncFn's call and the
// callback are reconciled with the lists (lifecycle.Store.Reconcile) and caught up
// after the snapshot; before p arrived, the lists are the truth (internal/lifecycle/unlisted.go).
func (r *Relay) synchronizeAndJoin(ctx context.Context, p *plugin) error {
	releaseGate, err := r.syncGate.EnterExclusiveCtx(ctx)
	if err != nil {
		return fmt.Errorf("nrikit: waiting for the runtime's plugin sync blocks to end: %w", err)
	}
	defer releaseGate()
	s := &syncRun{a: r, p: p, since: r.lifecycle.Now()}
	defer s.releaseBarrier()
	if r.cfg.Sync == nil {
		_, err = s.callback(ctx, nil, nil)
	} else {
		err = r.cfg.Sync(ctx, s.callback)
	}
	if _, _, called := s.result(); err == nil && !called {
		// The reference lets such a plugin join unsynchronized; an empty
		// snapshot, as with no SyncFn, keeps the lifecycle contract.
		p.log.Warn("nrikit: the runtime's sync function did not call its callback: the plugin gets an empty snapshot")
		_, err = s.callback(ctx, nil, nil)
	}
	if err != nil {
		return err
	}
	pods, ctrs, _ := s.result()
	if err := r.catchUp(ctx, p, pods, ctrs, s.since); err != nil {
		return err
	}
	return r.join(ctx, p)
}

// syncRun is one plugin's synchronization: the callback handed to SyncFn and
// what it saw.
type syncRun struct {
	a     *Relay
	p     *plugin
	since uint64 // the lifecycle clock when SyncFn was called

	mu      sync.Mutex
	called  bool
	over    bool // synchronizeAndJoin returned: a late callback must not take the barrier
	pods    []*api.PodSandbox
	ctrs    []*api.Container
	release func() // the event barrier, once taken
}

// callback is the SyncCB: it takes the event barrier (the runtime may hold
// its own lock by now, which its event callers take before ours), then
// sends the reconciled snapshot.
func (s *syncRun) callback(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.called:
		return nil, errors.New("nrikit: sync callback called twice")
	case s.over:
		return nil, errors.New("nrikit: sync callback called after the runtime's sync function returned")
	}
	s.called = true
	s.a.readiness.SyncCalledBack(s.p.id) // what holds it from now is not the runtime's lock
	s.release = s.a.barrier.EnterExclusive()
	s.pods, s.ctrs = s.a.lifecycle.Reconcile(pods, ctrs, min(s.p.arrived, s.since))
	s.pods, s.ctrs = s.a.lifecycle.InScope(s.p, s.pods, s.ctrs)
	if s.p.rollout.observer {
		return nil, s.a.queueSnapshot(s.p, s.pods, s.ctrs) // not awaited (observe_join.go)
	}
	updates, err := s.a.sendSnapshot(ctx, s.p, s.pods, s.ctrs)
	updates = withResources(updates)
	if s.p.updatesInScope("updates from Synchronize", updates) != nil {
		updates = nil // logged; the plugin joins, its updates are not applied
	}
	return updates, err
}

func (s *syncRun) result() ([]*api.PodSandbox, []*api.Container, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pods, s.ctrs, s.called
}

func (s *syncRun) releaseBarrier() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.over = true
	if s.release != nil {
		s.release()
		s.release = nil
	}
}

// join makes p active; an older instance with the same identity is shut
// down once p has taken its place.
func (r *Relay) join(ctx context.Context, p *plugin) error {
	old, err := r.registry.join(p)
	if err != nil {
		return err
	}
	r.cfg.Metrics.PluginCount(r.registry.len())
	// Logged before the joined report, so an operator reading the log and a
	// PluginChanges consumer see the plugin arrive in the same order.
	p.log.WithField("kind", p.kind.String()).WithField("events", subscription(p.events)).WithFields(p.settingsFields()).
		Info("nrikit: plugin connected")
	r.reportJoined(p)
	if old != nil {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.forget(old)
			old.shutdown(ctx, nri.ReasonReplaced, r.cfg.Request)
			r.logReplaced(p, old)
			r.reportLeft(old, "", nri.ReasonReplaced)
		}()
	}
	return nil
}

// sendSnapshot sends the state in as many Synchronize messages as the ttrpc
// message limit needs, and returns the plugin's updates.
func (r *Relay) sendSnapshot(ctx context.Context, p *plugin, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	chunks, err := splitSnapshot(pods, ctrs, maxSyncMessage)
	if err != nil {
		return nil, err
	}
	var enc syncEncoder
	for i, c := range chunks {
		more := i < len(chunks)-1
		req := enc.to(p, &api.SynchronizeRequest{Pods: c.pods, Containers: c.ctrs, More: more})
		var rsp *api.SynchronizeResponse
		err := p.invoke(ctx, r.cfg.SyncTimeout, func(ctx context.Context) (err error) {
			rsp, err = p.svc.Synchronize(ctx, req)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("message %d of %d: %w", i+1, len(chunks), err)
		}
		if !more {
			return rsp.GetUpdate(), nil
		}
		if !rsp.GetMore() || len(rsp.GetUpdate()) > 0 {
			return nil, errUnsupportedSync
		}
	}
	return nil, nil
}

// subscription lists a subscription for the log as the API spells its events
// (CreateContainer), or "all".
func subscription(m api.EventMask) string {
	if m&api.ValidEvents == api.ValidEvents {
		return "all"
	}
	return m.PrettyString()
}
