package adaptation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/api"
)

// runtimeService is our side of one plugin connection: the Runtime service
// the plugin calls to register and to ask for container updates.
type runtimeService struct {
	a        *Adaptation
	external bool // external plugins name themselves; launched ones are named by file
	result   chan registration
	once     sync.Once
	plugin   atomic.Pointer[plugin]
	updating chan struct{} // the plugin's updates handed to UpdateFn
}

type registration struct {
	req *api.RegisterPluginRequest
	err error
}

func newRuntimeService(a *Adaptation, external bool) *runtimeService {
	return &runtimeService{a: a, external: external, result: make(chan registration, 1),
		updating: make(chan struct{}, MaxPluginUpdatesInFlight)}
}

// RegisterPlugin accepts the first registration on the connection.
func (s *runtimeService) RegisterPlugin(_ context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	var err error
	if s.external {
		err = api.ValidatePluginIdentity(req.GetPluginIdx(), req.GetPluginName())
	}
	first := false
	s.once.Do(func() {
		first = true
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

// UpdateContainers hands a plugin's unsolicited updates to the runtime.
func (s *runtimeService) UpdateContainers(ctx context.Context, req *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	p := s.plugin.Load()
	if p == nil {
		return nil, errors.New("nrikit: UpdateContainers before registration completed")
	}
	updates := make([]*api.ContainerUpdate, 0, len(req.GetUpdate()))
	for _, u := range req.GetUpdate() {
		if u != nil && u.GetContainerId() != "" {
			updates = append(updates, u)
		}
	}
	if err := checkUnsolicited(p, updates); err != nil {
		return nil, err
	}
	if s.a.updateFn == nil {
		return &api.UpdateContainersResponse{Failed: updates}, nil
	}
	release, err := s.handOver(ctx, p)
	if err != nil {
		return nil, err
	}
	defer release()
	failed, err := s.a.updateFn(ctx, updates)
	if err != nil {
		p.log.WithError(err).Warn("nrikit: runtime failed unsolicited container updates")
	}
	return &api.UpdateContainersResponse{Failed: failed}, err
}

// await waits for the plugin's registration, at most timeout; lost is the
// connection's end.
func (s *runtimeService) await(ctx context.Context, timeout time.Duration, lost <-chan struct{}) (*api.RegisterPluginRequest, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-s.result:
		if r.err != nil {
			// Leave the connection up until the plugin has read why it was
			// refused (it disconnects) or the timeout ends.
			waitEither(ctx, t.C, lost)
			return nil, fmt.Errorf("%w: %w", ErrRegistration, r.err)
		}
		return r.req, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: plugin did not register within %v", ErrRegistration, timeout)
	case <-lost:
		return nil, fmt.Errorf("%w: connection closed before registration", ErrRegistration)
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrRegistration, ctx.Err())
	}
}

func waitEither(ctx context.Context, a <-chan time.Time, b <-chan struct{}) {
	select {
	case <-a:
	case <-b:
	case <-ctx.Done():
	}
}
