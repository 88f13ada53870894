package adaptation

import (
	"context"
	"errors"
	"fmt"

	"github.com/nrikit/nrikit/api"
)

// synchronizeAndJoin sends the runtime's state to p and makes it active, as
// one step under the event barrier: no fan-out is in flight while the
// snapshot is taken, and none can fall between it and p's first live event.
func (a *Adaptation) synchronizeAndJoin(ctx context.Context, p *plugin) error {
	defer a.barrier.enterSync()()
	var (
		called bool
		pods   []*api.PodSandbox
		ctrs   []*api.Container
	)
	cb := func(ctx context.Context, ps []*api.PodSandbox, cs []*api.Container) ([]*api.ContainerUpdate, error) {
		if called {
			return nil, errors.New("nrikit: sync callback called twice")
		}
		cs = append(cs, a.lifecycle.missingContainers(cs)...)
		called, pods, ctrs = true, ps, cs
		return a.sendSnapshot(ctx, p, ps, cs)
	}
	var err error
	if a.syncFn == nil {
		_, err = cb(ctx, nil, nil)
	} else {
		err = a.syncFn(ctx, cb)
	}
	if err == nil && !called {
		// The reference lets such a plugin join unsynchronized; an empty
		// snapshot, as with no SyncFn, keeps the lifecycle contract.
		p.log.Warn("nrikit: the runtime's sync function did not call its callback: the plugin gets an empty snapshot")
		_, err = cb(ctx, nil, nil)
	}
	if err != nil {
		return err
	}
	if err := a.catchUp(ctx, p, pods, ctrs); err != nil {
		return err
	}
	return a.join(ctx, p)
}

// join makes p active; an older instance with the same identity is shut
// down once p has taken its place.
func (a *Adaptation) join(ctx context.Context, p *plugin) error {
	old, ok := a.registry.join(p)
	if !ok {
		return errors.New("nrikit: runtime is stopping")
	}
	a.opts.metrics.PluginCount(a.registry.len())
	a.reportJoined(p)
	if old != nil {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.forget(old)
			old.shutdown(ctx, ReasonReplaced, a.opts.request)
			old.log.WithField("reason", ReasonReplaced).Info("nrikit: plugin replaced by a new instance")
			a.reportLeft(old, "", ReasonReplaced)
		}()
	}
	return nil
}

// sendSnapshot sends the state in as many Synchronize messages as the ttrpc
// message limit needs, and returns the plugin's updates.
func (a *Adaptation) sendSnapshot(ctx context.Context, p *plugin, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	chunks, err := splitSnapshot(pods, ctrs, maxSyncMessage)
	if err != nil {
		return nil, err
	}
	for i, c := range chunks {
		more := i < len(chunks)-1
		req := &api.SynchronizeRequest{Pods: c.pods, Containers: c.ctrs, More: more}
		var rsp *api.SynchronizeResponse
		err := p.invoke(ctx, a.opts.sync, func(ctx context.Context) (err error) {
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
