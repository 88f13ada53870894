// SPDX-License-Identifier: Apache-2.0

// The Runtime service a plugin calls: RegisterPlugin and UpdateContainers.

package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/identity"
	"github.com/nrikit/nrikit/internal/pluginconn"
)

// runtimeService is our side of one plugin connection: the Runtime service
// the plugin calls to register and to ask for container updates.
type runtimeService struct {
	relay    *Relay
	external bool // external plugins name themselves; launched ones are named by file
	// peer is an external plugin's, as the kernel (and, where the name's
	// rules need it, the runtime) told at its registration, written before
	// the registration is handed to await.
	peer     identity.Peer
	refusal  error // set: every registration is refused with it (join_refusal.go)
	result   chan registration
	once     sync.Once
	plugin   atomic.Pointer[plugin]
	rev      connRevision  // the revision it speaks (conn_revision.go)
	updating chan struct{} // the plugin's updates handed to UpdateFn
}

type registration struct {
	req *api.RegisterPluginRequest
	err error
}

// newRuntimeService serves a connection; peer is an external one's, nil for
// a launched plugin.
func newRuntimeService(r *Relay, peer *accept.Peer) *runtimeService {
	s := &runtimeService{relay: r, external: peer != nil, result: make(chan registration, 1),
		updating: make(chan struct{}, MaxPluginUpdatesInFlight)}
	if peer != nil {
		s.peer.Peer = *peer
	}
	return s
}

// RegisterPlugin accepts the first registration on the connection. Only
// the first is checked: what it finds out (the peer's pod, the settings'
// key) is written once, before the registration is handed to await.
func (s *runtimeService) RegisterPlugin(ctx context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	first := false
	var err error
	s.once.Do(func() {
		first = true
		err = s.check(ctx, req)
		s.result <- registration{req: req, err: err}
	})
	if !first {
		return nil, errors.New("nrikit: plugin already registered on this connection")
	}
	if err != nil {
		return nil, err
	}
	return &api.Empty{}, nil
}

// check says why a registration is refused, nil if it is not.
func (s *runtimeService) check(ctx context.Context, req *api.RegisterPluginRequest) (err error) {
	if s.refusal != nil || !s.external {
		return s.refusal
	}
	if err := api.ValidatePluginIdentity(req.GetPluginIdx(), req.GetPluginName()); err != nil {
		return err
	}
	if s.relay == nil {
		return nil
	}
	// Refused in the reply, so that the plugin hears why: a stub told it
	// registered, then cut off, waits for ever.
	return s.relay.mayRegister(ctx, req.GetPluginIdx(), req.GetPluginName(), &s.peer)
}

// UpdateContainers hands a plugin's unsolicited updates to the runtime.
func (s *runtimeService) UpdateContainers(ctx context.Context, req *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	p := s.plugin.Load()
	if p == nil {
		return nil, errors.New("nrikit: UpdateContainers before registration completed")
	}
	if err := refuseObserverUpdates(p, len(req.GetUpdate())); err != nil {
		return nil, err
	}
	// Updates that name no container never reach the runtime; the plugin
	// hears they failed. Those without resources have nothing to do.
	updates := make([]*api.ContainerUpdate, 0, len(req.GetUpdate()))
	var unnamed []*api.ContainerUpdate
	for _, u := range req.GetUpdate() {
		switch {
		case u == nil:
		case u.GetContainerId() == "":
			unnamed = append(unnamed, u)
		case hasResources(u):
			updates = append(updates, u)
		}
	}
	if len(unnamed) > 0 {
		p.log.WithField("count", len(unnamed)).Debug("nrikit: unsolicited updates that name no container reported failed")
	}
	updates, unnamed = s.relay.scopedUnsolicited(p, updates, unnamed)
	if err := p.updatesInScope("unsolicited updates", updates); err != nil {
		// The plugin hears why; none reaches the runtime.
		return nil, status.Error(codes.PermissionDenied, err.Error())
	}
	if err := checkUnsolicited(p, updates); err != nil {
		return nil, err
	}
	if s.relay.cfg.Update == nil {
		return &api.UpdateContainersResponse{Failed: append(updates, unnamed...)}, nil
	}
	if len(updates) == 0 {
		return &api.UpdateContainersResponse{Failed: unnamed}, nil // nothing to take the runtime's lock for
	}
	release, err := s.handOver(ctx, p)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := s.relay.updateCalls.enter(); err != nil {
		return nil, err
	}
	defer s.relay.updateCalls.leave()
	var failed []*api.ContainerUpdate
	pluginconn.ByRuntime(func() { failed, err = s.relay.cfg.Update(ctx, updates) })
	s.relay.cfg.Records.Unsolicited(p.id, updates, failed)
	if err != nil {
		p.log.WithError(err).Warn("nrikit: runtime failed unsolicited container updates")
	}
	return &api.UpdateContainersResponse{Failed: append(failed, unnamed...)}, err
}

// await waits for the plugin's registration, at most timeout; lost is the
// connection's end, and unanswered counts the plugin's calls not answered.
// A refused registration is returned with its error.
func (s *runtimeService) await(ctx context.Context, timeout time.Duration, lost <-chan struct{}, unanswered func() (int, <-chan struct{})) (*api.RegisterPluginRequest, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-s.result:
		if r.err != nil {
			// The connection is closed, but not before the reply saying
			// why is on its way, and the plugin had a moment to read it:
			// a reference stub whose connection ends before it took the
			// reply off it sees only "ttrpc: closed".
			waitAnswered(ctx, t.C, lost, unanswered)
			waitClosedByPeer(ctx, lost, refusalGrace)
			return r.req, fmt.Errorf("%w: %w", errRegistration, r.err)
		}
		return r.req, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: plugin did not register within %v", errRegistration, timeout)
	case <-lost:
		return nil, fmt.Errorf("%w: connection closed before registration", errRegistration)
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", errRegistration, ctx.Err())
	}
}

// refusalGrace is how long a refused plugin has to read why and hang up
// before nrikit closes its connection.
const refusalGrace = time.Second

// waitClosedByPeer waits until the peer closes the connection, at most
// grace.
func waitClosedByPeer(ctx context.Context, lost <-chan struct{}, grace time.Duration) {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-lost:
	case <-t.C:
	case <-ctx.Done():
	}
}

// waitAnswered waits until every call the plugin made has been answered,
// the connection is lost, timer fires or ctx ends.
func waitAnswered(ctx context.Context, timer <-chan time.Time, lost <-chan struct{}, unanswered func() (int, <-chan struct{})) {
	for {
		n, changed := unanswered()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-timer:
			return
		case <-lost:
			return
		case <-ctx.Done():
			return
		}
	}
}
