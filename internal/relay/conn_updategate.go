// SPDX-License-Identifier: Apache-2.0

// Handing a plugin's UpdateContainers to the runtime's UpdateFn, a few at a time.

package relay

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// MaxPluginUpdatesInFlight is how many of one plugin's UpdateContainers calls
// the runtime's UpdateFn handles at once. Others wait (at most
// pluginconn.MaxPendingPluginCalls in all) and are never handed over once
// the plugin is gone or the call's context ends, even if UpdateFn ignores
// its context.
const MaxPluginUpdatesInFlight = 2

// handOver waits for p's turn to call UpdateFn. It gives up when p's
// connection is lost, p is dropped or ctx ends; release ends the turn.
func (s *runtimeService) handOver(ctx context.Context, p *plugin) (release func(), err error) {
	select {
	case s.updating <- struct{}{}:
	case <-p.closed:
		return nil, fmt.Errorf("%w: %s: UpdateContainers not handed to the runtime", ErrPluginClosed, p.id)
	case <-p.conn.Lost():
		return nil, fmt.Errorf("%w: %s: UpdateContainers not handed to the runtime", ErrPluginClosed, p.id)
	case <-ctx.Done():
		return nil, fmt.Errorf("nrikit: %s: UpdateContainers not handed to the runtime: %w", p.id, ctx.Err())
	}
	release = func() { <-s.updating }
	// A turn that came up together with the end is not taken.
	if p.isClosed() || connectionLost(p.conn) || ctx.Err() != nil {
		release()
		return nil, fmt.Errorf("%w: %s: UpdateContainers not handed to the runtime", ErrPluginClosed, p.id)
	}
	return release, nil
}

// checkUnsolicited refuses, as a whole, updates carrying a value the OCI spec
// or the kernel cannot take: the plugin hears which (InvalidArgument), the
// runtime never sees them. Logged at debug level only, since a plugin could
// otherwise fill the log.
func checkUnsolicited(p *plugin, updates []*api.ContainerUpdate) error {
	for _, u := range updates {
		if err := limits.Resources(u.GetLinux().GetResources()); err != nil {
			err = fmt.Errorf("nrikit: plugin %s: UpdateContainers: container %q: %w", p.id, u.GetContainerId(), err)
			p.log.WithError(err).Debug("nrikit: refused a plugin's container updates")
			return status.Error(codes.InvalidArgument, err.Error())
		}
	}
	return nil
}

// withResources drops the updates that carry no resources: there is
// nothing to apply, and runtime code that converts them with ToOCI (which
// gives nil for none) would dereference nil.
func withResources(updates []*api.ContainerUpdate) []*api.ContainerUpdate {
	return slices.DeleteFunc(updates, func(u *api.ContainerUpdate) bool { return !hasResources(u) })
}

func hasResources(u *api.ContainerUpdate) bool { return u.GetLinux().GetResources() != nil }
