package adaptation

import (
	"context"
	"errors"

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
// service it called, or in its connection's reader.
func panicOf(p *plugin) *panics.Error {
	if pe := p.panicked.Load(); pe != nil {
		return pe
	}
	if c, ok := p.conn.(*socketConn); ok {
		return c.panicOf()
	}
	return nil
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
// plugin's connection, which drops it, or fails its registration. That
// covers the runtime's UpdateFn too: it runs on ttrpc's goroutine, where the
// runtime could not recover its own panic.
func (c *socketConn) recoverServed(ctx context.Context, unmarshal ttrpc.Unmarshaler, info *ttrpc.UnaryServerInfo, method ttrpc.Method) (rsp any, err error) {
	defer func() {
		if pe := panicIn(err); pe != nil {
			c.panicked.CompareAndSwap(nil, pe)
			_ = c.mux.Close()
			rsp, err = nil, status.Errorf(codes.Internal, "nrikit: %s failed: %v", info.FullMethod, pe)
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("runtime.serve", info.FullMethod)
	return method(ctx, unmarshal)
}

// panicOf is the panic that ended the connection, if one did.
func (c *socketConn) panicOf() *panics.Error {
	if pe := c.panicked.Load(); pe != nil {
		return pe
	}
	return panicIn(c.mux.Err())
}
