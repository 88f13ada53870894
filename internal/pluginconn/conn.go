// SPDX-License-Identifier: Apache-2.0

// A plugin's socket connection: mux, ttrpc client and server, guards, its process.

package pluginconn

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

// Conn is a plugin connection over a multiplexed unix socket: the runtime's
// services on mux connection 2, served by ttrpc behind a guard that lets
// only unary calls through, and a client for the plugin's Plugin service on
// connection 1: nrikit's own (client.go), which keeps the guard's rules
// itself, or, when the runtime gave ttrpc client options (their
// interceptors run only in ttrpc's client), ttrpc's client behind a guard.
type Conn struct {
	trunk   net.Conn
	mux     *mux.Mux
	direct  *client       // the Plugin service's client; nil where ttrpc's is used
	client  *ttrpc.Client // ttrpc's client, with the runtime's ttrpc client options
	server  *ttrpc.Server
	served  *guard.Conn     // connection 2, where the plugin calls us
	calls   *guard.Conn     // connection 1 under ttrpc's client
	proc    *launch.Process // nil for external plugins
	peer    int             // the peer's pid, read while the socket is open
	peerLog *peerLog
	once    sync.Once
	wg      sync.WaitGroup // the ttrpc server's Serve
	// panicked is the panic in our service that ended the connection.
	panicked atomic.Pointer[panics.Error]
}

// Config is what Dial needs besides the socket.
type Config struct {
	// Process is the launched plugin at the other end; nil for an external
	// one, whose pid is read from the socket.
	Process *launch.Process
	// Register serves the runtime's services (of every revision) on the
	// connection's ttrpc server.
	Register   func(*ttrpc.Server)
	ServerOpts []ttrpc.ServerOpt
	// ClientOpts, when there are any, make the connection call the plugin
	// through ttrpc's client with these options, so that their
	// interceptors run.
	ClientOpts []ttrpc.ClientOpts
	Log        *logrus.Entry
	// Name is the plugin's ID when known before registration (a launched
	// plugin's, from its file), or nri.Unregistered.
	Name string
	// PeerPID is an external plugin's pid, as the kernel told when it
	// connected; 0 when unknown.
	PeerPID int
}

// Dial sets up both services on trunk. The mux reader starts only once our
// server is registered, so the plugin's first frame is not dropped.
func Dial(trunk net.Conn, cfg Config) (*Conn, error) {
	m := mux.New(trunk, mux.WithReaderBlocked())
	c := &Conn{trunk: trunk, mux: m, proc: cfg.Process}
	// The runtime's own options come first: one of them may set the one
	// unchained interceptor ttrpc allows.
	server, err := ttrpc.NewServer(append(slices.Clip(cfg.ServerOpts), ttrpc.WithChainUnaryServerInterceptor(c.recoverServed, checkCallStrings, boundUpdateCount))...)
	if err != nil {
		m.Close()
		return nil, err
	}
	c.server = server
	cfg.Register(server)
	rc, err := m.Open(mux.RuntimeServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	if c.proc == nil {
		c.peer = cfg.PeerPID
	}
	c.peerLog = newPeerLog(cfg.Log.WithFields(logrus.Fields{"plugin": cfg.Name, "pid": c.PID()}))
	c.served = guard.New(rc, guard.Config{Role: guard.Server, Serves: servesRuntime, Report: c.peerLog.violation, Failed: c.fail})
	if err := c.dialPluginService(cfg.ClientOpts); err != nil {
		m.Close()
		return nil, err
	}
	l := accept.OneConn(c.served, m.Done())
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		// ttrpc's server logs through the logger its context carries.
		logger := cfg.Log.WithField("pid", c.PID())
		_ = server.Serve(log.WithLogger(context.Background(), logger), &boundedListener{l, c.fail}) // a pointer: ttrpc keys a map by it
	}()
	m.Unblock()
	return c, nil
}

// dialPluginService opens connection 1 for the client of the plugin's
// Plugin service: nrikit's own, or ttrpc's where the runtime gave options
// for it.
func (c *Conn) dialPluginService(opts []ttrpc.ClientOpts) error {
	if len(opts) == 0 {
		var err error
		c.direct, err = newClient(c.mux, c.peerLog.violation)
		return err
	}
	pc, err := c.mux.Open(mux.PluginServiceConn)
	if err != nil {
		return err
	}
	c.calls = guard.New(pc, guard.Config{Role: guard.Client, Report: c.peerLog.violation, Failed: c.fail})
	c.client = ttrpc.NewClient(c.calls, append(slices.Clip(opts), ttrpc.WithChainUnaryClientInterceptor(checkReplyStrings))...)
	return nil
}

// Registered names the plugin in the log lines its connection causes.
func (c *Conn) Registered(entry *logrus.Entry) {
	c.peerLog.name(entry.WithField("pid", c.PID()))
}

// Unanswered is the number of the plugin's calls not yet answered in full,
// and a channel closed when that may have changed.
func (c *Conn) Unanswered() (int, <-chan struct{}) { return c.served.Unanswered() }

// Service is the plugin's Plugin service in the revision it registered on.
func (c *Conn) Service(r *Revision) api.PluginService {
	if c.direct != nil {
		return pluginService{c: c.direct, methods: r.methods, stateChange: r.StateChange}
	}
	return r.client(c.client)
}

// Lost is closed when the connection is gone for good.
func (c *Conn) Lost() <-chan struct{} { return c.mux.Done() }

// WithTrunkError adds to err why the connection's trunk ended, where nrikit
// ended it (a frame over the limit, bytes that are not the protocol, a
// panic): the peer did not simply hang up.
func (c *Conn) WithTrunkError(err error) error {
	if pe := c.PanicOf(); pe != nil {
		return fmt.Errorf("%w: %w", err, pe)
	}
	why := c.mux.Err()
	if why == nil || errors.Is(why, io.EOF) || errors.Is(why, mux.ErrClosed) {
		return err
	}
	return fmt.Errorf("%w: %w", err, why)
}

// AbandonCalls makes the guard drop a late answer, which ttrpc's client
// would log at error level on logrus' standard logger. Only the call whose
// caller gave up may be open: the plugin handles one at a time. nrikit's
// own client needs no telling: a caller that gives up abandons its call.
func (c *Conn) AbandonCalls() {
	if c.calls != nil {
		c.calls.AbandonOpen()
	}
}

// BoundWrites makes the writes of requests to the plugin give up at t; the
// zero time lifts the bound. Only requests are written on that connection,
// one call at a time, so nothing else has a deadline that could expire.
// nrikit's own client bounds each request's write by its call's deadline
// itself.
func (c *Conn) BoundWrites(t time.Time) {
	if c.calls != nil {
		_ = c.calls.SetWriteDeadline(t)
	}
}

// PID is the plugin process's pid: the launched process's, or the peer's as
// the socket tells it (0 where the OS does not).
func (c *Conn) PID() int {
	if c.proc != nil {
		return c.proc.Pid()
	}
	return c.peer
}

// Process is the launched plugin's process, nil for an external plugin.
func (c *Conn) Process() *launch.Process { return c.proc }

// ExitStatus says how a launched plugin's process ended, waiting up to
// wait for it to end; "" when there is no process or it still runs.
func (c *Conn) ExitStatus(wait time.Duration) string {
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

// Close tears the connection down at once and kills a launched process.
func (c *Conn) Close() {
	c.once.Do(func() {
		c.teardown()
		if c.proc != nil {
			_ = c.proc.Kill()
		}
	})
}

// Stop ends the connection gracefully within ctx: a launched process is
// asked to terminate before it is killed (then Stop says so).
func (c *Conn) Stop(ctx context.Context) error {
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
func (c *Conn) teardown() {
	if c.direct != nil {
		_ = c.direct.Close()
	} else {
		_ = c.client.Close()
	}
	_ = c.server.Close()
	_ = c.mux.Close()
	c.wg.Wait()
	c.peerLog.flush()
}
