// SPDX-License-Identifier: Apache-2.0

// A plugin's socket connection: mux, ttrpc client and server, guards, its process.

package adaptation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/containerd/log"
	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/mux"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/syncx"
)

// socketConn is a plugin connection over a multiplexed unix socket: our
// Runtime service on mux connection 2, a Plugin client on connection 1.
// Both ttrpc ends sit behind a guard that lets only unary calls through.
type socketConn struct {
	trunk   net.Conn
	mux     *mux.Mux
	client  *ttrpc.Client
	server  *ttrpc.Server
	served  *guard.Conn     // connection 2, where the plugin calls us
	calls   *guard.Conn     // connection 1, where we call the plugin
	proc    *launch.Process // nil for external plugins
	peer    int             // the peer's pid, read while the socket is open
	peerLog *peerLog
	once    sync.Once
	wg      sync.WaitGroup // the ttrpc server's Serve
	// panicked is the panic in our service that ended the connection.
	panicked atomic.Pointer[panics.Error]
}

// dialSocketConn sets up both services on trunk. The mux reader starts only
// once our server is registered, so the plugin's first frame is not dropped.
// name is the plugin's ID when known before registration, or unregistered.
func dialSocketConn(trunk net.Conn, proc *launch.Process, runtime *runtimeService, o *options, name string) (*socketConn, error) {
	m := mux.New(trunk, mux.WithReaderBlocked())
	c := &socketConn{trunk: trunk, mux: m, proc: proc}
	// The runtime's own options come first: one of them may set the one
	// unchained interceptor ttrpc allows.
	server, err := ttrpc.NewServer(append(slices.Clip(o.serverOpts), ttrpc.WithChainUnaryServerInterceptor(c.recoverServed, checkCallStrings, boundUpdateCount))...)
	if err != nil {
		m.Close()
		return nil, err
	}
	c.server = server
	registerRuntimeServices(server, runtime) // of every revision
	rc, err := m.Open(mux.RuntimeServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	pc, err := m.Open(mux.PluginServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	if proc == nil {
		c.peer = accept.PeerPID(trunk)
	}
	c.peerLog = newPeerLog(o.logger.WithFields(logrus.Fields{"plugin": name, "pid": c.pid()}))
	c.served = guard.New(rc, guard.Config{Role: guard.Server, Serves: servesRuntime, Report: c.peerLog.violation, Failed: c.fail})
	c.calls = guard.New(pc, guard.Config{Role: guard.Client, Report: c.peerLog.violation, Failed: c.fail})
	c.client = ttrpc.NewClient(c.calls, append(slices.Clip(o.clientOpts), ttrpc.WithChainUnaryClientInterceptor(checkReplyStrings))...)
	l := accept.OneConn(c.served, m.Done())
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		// ttrpc's server logs through the logger its context carries.
		logger := o.logger.WithField("pid", c.pid())
		_ = server.Serve(log.WithLogger(context.Background(), logger), &boundedListener{l, c.fail}) // a pointer: ttrpc keys a map by it
	}()
	m.Unblock()
	return c, nil
}

// registered names the plugin in the log lines its connection causes.
func (c *socketConn) registered(entry *logrus.Entry) {
	c.peerLog.name(entry.WithField("pid", c.pid()))
}

// unanswered is the number of the plugin's calls not yet answered in full,
// and a channel closed when that may have changed.
func (c *socketConn) unanswered() (int, <-chan struct{}) { return c.served.Unanswered() }

// service is the plugin's Plugin service in the revision it registered on.
func (c *socketConn) service(r *revision) api.PluginService { return r.client(c.client) }

func (c *socketConn) lost() <-chan struct{} { return c.mux.Done() }

// withTrunkError adds to err why the connection's trunk ended, where nrikit
// ended it (a frame over the limit, bytes that are not the protocol): the
// peer did not simply hang up.
func withTrunkError(err error, c *socketConn) error {
	if pe := c.panicOf(); pe != nil {
		return fmt.Errorf("%w: %w", err, pe)
	}
	why := c.mux.Err()
	if why == nil || errors.Is(why, io.EOF) || errors.Is(why, mux.ErrClosed) {
		return err
	}
	return fmt.Errorf("%w: %w", err, why)
}

// abandonCalls makes the guard drop a late answer, which ttrpc's client
// would log at error level on logrus' standard logger.
func (c *socketConn) abandonCalls() { c.calls.AbandonOpen() }

func (c *socketConn) pid() int {
	if c.proc != nil {
		return c.proc.Pid()
	}
	return c.peer
}

func (c *socketConn) exitStatus(wait time.Duration) string {
	if c.proc == nil {
		return ""
	}
	if !syncx.Within(c.proc.Exited(), wait) {
		return ""
	}
	if err := c.proc.ExitErr(); err != nil {
		return "plugin process: " + err.Error()
	}
	return "plugin process exited with status 0"
}

func (c *socketConn) output() []OutputLine { return outputOf(c.proc, exitGrace) }

func (c *socketConn) close() {
	c.once.Do(func() {
		c.teardown()
		if c.proc != nil {
			_ = c.proc.Kill()
		}
	})
}

func (c *socketConn) stop(ctx context.Context) error {
	var err error
	c.once.Do(func() {
		c.teardown()
		if c.proc != nil {
			err = c.proc.Stop(ctx)
		}
	})
	return err
}

// teardown closes the ttrpc ends before the mux under them, so that they
// see an orderly close rather than an error they would log.
func (c *socketConn) teardown() {
	_ = c.client.Close()
	_ = c.server.Close()
	_ = c.mux.Close()
	c.wg.Wait()
	c.peerLog.flush()
}
