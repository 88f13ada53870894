// SPDX-License-Identifier: Apache-2.0

// Containing a panic in code a plugin steers: it ends that plugin, never the runtime.

package relay

import (
	"context"
	"errors"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/panics"
)

// A panic in code that a plugin steers (its replies, its calls to us, the
// bytes on its socket, a WASM guest) ends that plugin, never the runtime's
// process: each place recovers it with panics.Recover, and the plugin is
// dropped or fails to join with the panic in its reason and its stack in the
// log line that reports it.

// run is fn, one call to p; a panic in it is p's loss: whatever the call
// held is in an unknown state, so the policy drops p.
func (p *plugin) run(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if pe := panicIn(err); pe != nil {
			p.panicked.CompareAndSwap(nil, pe)
			err = &lostError{err}
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("plugin.call", p.id)
	return fn(ctx)
}

// panicOf is the panic that ended p, if one did: in a call to it, in our
// service it called, in its connection's reader, or in the host's code
// running its WASM guest.
func panicOf(p *plugin) *panics.Error {
	if pe := p.panicked.Load(); pe != nil {
		return pe
	}
	if c, ok := p.conn.(interface{ PanicOf() *panics.Error }); ok {
		return c.PanicOf()
	}
	return nil
}

// withPanic adds the panic that ended p, if one did, to the reason p is
// dropped for, and its stack to log, the line that says so.
func withPanic(p *plugin, log *logrus.Entry, reason string) (string, *logrus.Entry) {
	pe := panicOf(p)
	if pe == nil {
		return reason, log
	}
	if strings.HasPrefix(reason, "connection lost") {
		reason = pe.Error() // it did not simply hang up: nrikit closed it
	} else {
		reason += ": " + pe.Error()
	}
	return reason, log.WithField("stack", pe.Stack)
}

// panicIn is the panic err carries, if any. A call that succeeded costs
// nothing: errors.As would allocate its target.
func panicIn(err error) *panics.Error {
	if err == nil {
		return nil
	}
	var pe *panics.Error
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// withStack adds the stack of the panic in err, if any, to a log line.
func withStack(log *logrus.Entry, err error) *logrus.Entry {
	if pe := panicIn(err); pe != nil {
		return log.WithField("stack", pe.Stack)
	}
	return log
}
