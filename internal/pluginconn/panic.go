// SPDX-License-Identifier: Apache-2.0

// Containing a panic in code a plugin's calls and bytes steer: it ends the connection, never the runtime.

package pluginconn

import (
	"context"
	"errors"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/internal/panics"
)

// recoverServed is the interceptor of the Runtime service a plugin calls. A
// panic in a handler answers the call with an error and closes the
// plugin's connection, which drops it, or fails its registration. A panic
// in the runtime's own UpdateFn is raised again (see ByRuntime).
func (c *Conn) recoverServed(ctx context.Context, unmarshal ttrpc.Unmarshaler, info *ttrpc.UnaryServerInfo, method ttrpc.Method) (rsp any, err error) {
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
func (c *Conn) fail(err error) {
	if pe := panicIn(err); pe != nil {
		c.panicked.CompareAndSwap(nil, pe)
		_ = c.mux.Close()
	}
}

// PanicOf is the panic that ended the connection, if one did: in the
// runtime's services the plugin called, or in the connection's reader.
func (c *Conn) PanicOf() *panics.Error {
	if pe := c.panicked.Load(); pe != nil {
		return pe
	}
	return panicIn(c.mux.Err())
}

// runtimePanic carries a panic of the runtime's own callback through the
// recovery of the plugin call that made nrikit call it.
type runtimePanic struct{ value any }

// ByRuntime runs fn, a call of the runtime's own UpdateFn from a service
// the plugin called. A panic in it is the runtime's bug, not the plugin's,
// and is not recovered: the runtime holds its own lock in UpdateFn, and
// after a panic there nrikit cannot know whether it still does. Carrying on
// could leave every later CRI call waiting for that lock; the process ends,
// as it would had the runtime called its function itself.
func ByRuntime(fn func()) {
	defer func() {
		if v := recover(); v != nil {
			panic(runtimePanic{v})
		}
	}()
	fn()
}

func panicIn(err error) *panics.Error {
	var pe *panics.Error
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
