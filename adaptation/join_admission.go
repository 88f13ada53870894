// SPDX-License-Identifier: Apache-2.0

// Admission's public side: the bounds on connections registering at once, and ErrSyncBackoff.

package adaptation

import (
	"errors"

	"github.com/nrikit/nrikit/internal/admission"
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

// errEvicted ends a connection that had not registered when all places were
// taken and a newer one came.
var errEvicted = errors.New("nrikit: closed before registering, to make room for a newer connection: " +
	"too many connections were registering at once")

// newAdmission counts connections that have not registered, within the
// bounds above.
func newAdmission() *admission.Admission {
	return admission.NewAdmission(admission.Bounds{
		Total:   MaxRegisteringConnections,
		PerPID:  MaxRegisteringConnectionsPerPID,
		Refused: ErrTooManyRegistering,
	})
}
