// SPDX-License-Identifier: Apache-2.0

// A plugin's socket connection (internal/pluginconn) as a plugin's transport, and its public bounds.

package adaptation

import (
	"context"
	"net"
	"time"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/pluginconn"
)

// Protocol revisions, as PluginInfo.Revision and PluginChange.Revision
// report them.
const (
	// RevisionV1alpha1 is the released protocol (reference v0.11 .. v0.12).
	RevisionV1alpha1 = "v1alpha1"
	// RevisionV1beta1 is the proposed revision (the reference's open
	// "devel/api/v1beta1" pull request, as of its head of 2025-11-04).
	RevisionV1beta1 = "v1beta1"
)

// MaxPendingPluginCalls is how many requests one plugin connection may have
// sent on the runtime service (UpdateContainers, RegisterPlugin, any other)
// that nrikit has taken on and not yet answered. A request beyond that is
// answered at once with gRPC code ResourceExhausted, without ever reaching the
// service: ttrpc starts a goroutine for every request it reads, so this caps
// the goroutines and memory one plugin can make the runtime hold, whatever
// rate it sends at.
const MaxPendingPluginCalls = pluginconn.MaxPendingPluginCalls

// MaxUnsolicitedUpdates is how many updates one UpdateContainers call may
// carry. Decoded, a minimal update (an ID and CPU shares, 20 bytes on the
// wire) takes about 340 bytes of the runtime's heap: a call of 4 MiB of
// them would take 67 MB, eight waiting calls of one plugin 540 MB, and
// each would hand UpdateFn 200,000 updates under the runtime's lock. A node
// runs far fewer containers than this.
const MaxUnsolicitedUpdates = pluginconn.MaxUnsolicitedUpdates

// ErrTooManyUpdates refuses an UpdateContainers call with more than
// MaxUnsolicitedUpdates updates, before it is decoded.
var ErrTooManyUpdates = pluginconn.ErrTooManyUpdates

// socketConn is a socket plugin's connection as its transport.
type socketConn struct{ *pluginconn.Conn }

// dialSocketConn sets up a plugin connection on trunk serving rs. name is
// the plugin's ID when known before registration, or nri.Unregistered.
func dialSocketConn(trunk net.Conn, proc *launch.Process, rs *runtimeService, o *options, name string) (socketConn, error) {
	c, err := pluginconn.Dial(trunk, pluginconn.Config{
		Process:    proc,
		Register:   func(s *ttrpc.Server) { registerRuntimeServices(s, rs) },
		ServerOpts: o.serverOpts,
		ClientOpts: o.clientOpts,
		Log:        o.logger,
		Name:       name,
	})
	return socketConn{c}, err
}

func (c socketConn) lost() <-chan struct{}                { return c.Lost() }
func (c socketConn) close()                               { c.Close() }
func (c socketConn) stop(ctx context.Context) error       { return c.Stop(ctx) }
func (c socketConn) pid() int                             { return c.PID() }
func (c socketConn) exitStatus(wait time.Duration) string { return c.ExitStatus(wait) }
func (c socketConn) output() []OutputLine                 { return outputLines(c.Process().LastLines(exitGrace)) }
func (c socketConn) abandonCalls()                        { c.AbandonCalls() }
func (c socketConn) boundWrites(t time.Time)              { c.BoundWrites(t) }
func (c socketConn) panicOf() *panics.Error               { return c.PanicOf() }
