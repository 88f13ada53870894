// SPDX-License-Identifier: Apache-2.0

// Containing a panic in code a plugin steers: it ends that plugin, never the runtime.

package adaptation

import (
	"context"
	"errors"
	"strings"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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
	if c, ok := p.conn.(interface{ panicOf() *panics.Error }); ok {
		return c.panicOf()
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

func panicIn(err error) *panics.Error {
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

// recoverServed is the interceptor of the Runtime service a plugin calls. A
// panic in a handler answers the call with an error and closes the
// plugin's connection, which drops it, or fails its registration. A panic
// in the runtime's own UpdateFn is raised again (see byRuntime).
func (c *socketConn) recoverServed(ctx context.Context, unmarshal ttrpc.Unmarshaler, info *ttrpc.UnaryServerInfo, method ttrpc.Method) (rsp any, err error) {
	defer func() {
		if pe := panicIn(err); pe != nil {
			if own, ok := pe.Value.(runtimePanic); ok {
				panic(own.value)
			}
			c.fail(pe)
			rsp, err = nil, status.Errorf(codes.Internal, "nrikit: %s failed: %v", info.FullMethod, pe)
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("runtime.serve", info.FullMethod)
	return method(ctx, unmarshal)
}

// fail ends the connection for a panic in code its peer steered: its
// plugin is dropped, or fails to join, for it. The mux's reader never waits
// for the goroutine that calls this, so closing here cannot wait on itself.
func (c *socketConn) fail(err error) {
	if pe := panicIn(err); pe != nil {
		c.panicked.CompareAndSwap(nil, pe)
		_ = c.mux.Close()
	}
}

// panicOf is the panic that ended the connection, if one did.
func (c *socketConn) panicOf() *panics.Error {
	if pe := c.panicked.Load(); pe != nil {
		return pe
	}
	return panicIn(c.mux.Err())
}

// runtimePanic carries a panic of the runtime's own callback through the
// recovery of the plugin call that made nrikit call it.
type runtimePanic struct{ value any }

// byRuntime runs fn, a call of the runtime's own UpdateFn. A panic in it is
// the runtime's bug, not the plugin's, and is not recovered: the runtime
// holds its own lock in UpdateFn, and after a panic there nrikit cannot
// know whether it still does. Carrying on could leave every later CRI call
// waiting for that lock; the process ends, as it would had the runtime
// called its function itself.
func byRuntime(fn func()) {
	defer func() {
		if v := recover(); v != nil {
			panic(runtimePanic{v})
		}
	}()
	fn()
}
