// SPDX-License-Identifier: Apache-2.0

// The bounds on what plugins can make the runtime hold: connections registering at once, calls
// pending, updates in one call and handed to UpdateFn at once.

package adaptation

import (
	"errors"

	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/pluginconn"
)

// Bounds on external connections in their handshake (until the plugin has
// joined or failed). Each holds a mux, a ttrpc server and a few goroutines,
// so without a bound a local client opening connections it never uses runs
// the runtime out of descriptors and memory. A node runs tens of plugins,
// each connecting once and registering at once. When all places are taken,
// the oldest connection that has not registered makes room for the new one:
// a flood of idle connections cannot keep out a plugin that registers. Only
// when every place is held by a plugin that registered and is still joining
// is a new connection refused. One process gets a share, beyond which its
// own new connections are refused.
const (
	MaxRegisteringConnections       = 128
	MaxRegisteringConnectionsPerPID = 16
)

// ErrTooManyRegistering is how a connection over these bounds is refused:
// in its RegisterPlugin reply, whose error text names the bound, when the
// peer gets as far as calling it.
var ErrTooManyRegistering = errors.New("nrikit: too many plugin connections registering at once")

// ErrSyncBackoff: an external plugin registered again too soon after its
// synchronization timed out.
var ErrSyncBackoff = admission.ErrSyncBackoff

// registeringBounds are the bounds above, as the relay's admission counts
// connections.
var registeringBounds = admission.Bounds{
	Total:   MaxRegisteringConnections,
	PerPID:  MaxRegisteringConnectionsPerPID,
	Refused: ErrTooManyRegistering,
}

// MaxPendingPluginCalls is how many requests one plugin connection may have
// sent on the runtime service (UpdateContainers, RegisterPlugin, any other)
// that nrikit has taken on and not yet answered. A request beyond that is
// answered at once with gRPC code ResourceExhausted, without ever reaching the
// service: ttrpc starts a goroutine for every request it reads, so this caps
// the goroutines and memory one plugin can make the runtime hold, whatever
// rate it sends at.
const MaxPendingPluginCalls = 8

// MaxUnsolicitedUpdates is how many updates one UpdateContainers call may
// carry. Decoded, a minimal update (an ID and CPU shares, 20 bytes on the
// wire) takes about 340 bytes of the runtime's heap: a call of 4 MiB of
// them would take 67 MB, eight waiting calls of one plugin 540 MB, and
// each would hand UpdateFn 200,000 updates under the runtime's lock. A node
// runs far fewer containers than this.
const MaxUnsolicitedUpdates = 4096

// ErrTooManyUpdates refuses an UpdateContainers call with more than
// MaxUnsolicitedUpdates updates, before it is decoded.
var ErrTooManyUpdates = pluginconn.ErrTooManyUpdates

// MaxPluginUpdatesInFlight is how many of one plugin's UpdateContainers calls
// the runtime's UpdateFn handles at once. Others wait (at most
// MaxPendingPluginCalls in all) and are never handed over once the plugin is
// gone or the call's context ends, even if UpdateFn ignores its context.
const MaxPluginUpdatesInFlight = 2
