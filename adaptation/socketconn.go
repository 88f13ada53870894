package adaptation

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/containerd/log"
	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/mux"
)

// socketConn is a plugin connection over a multiplexed unix socket: our
// Runtime service on mux connection 2, a Plugin client on connection 1.
type socketConn struct {
	trunk  net.Conn
	mux    *mux.Mux
	client *ttrpc.Client
	server *ttrpc.Server
	proc   *launch.Process // nil for external plugins
	peer   int             // the peer's pid, read while the socket is open
	once   sync.Once
	wg     sync.WaitGroup // the ttrpc server's Serve
}

// dialSocketConn sets up both services on trunk. The mux reader starts only
// once our server is registered, so the plugin's first frame is not dropped.
func dialSocketConn(trunk net.Conn, proc *launch.Process, runtime api.RuntimeService, o *options) (*socketConn, error) {
	m := mux.New(trunk, mux.WithReaderBlocked())
	server, err := ttrpc.NewServer(o.serverOpts...)
	if err != nil {
		m.Close()
		return nil, err
	}
	api.RegisterRuntimeService(server, runtime)
	l, err := m.Listen(mux.RuntimeServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	pc, err := m.Open(mux.PluginServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	c := &socketConn{trunk: trunk, mux: m, server: server, proc: proc}
	if proc == nil {
		c.peer = peerPID(trunk)
	}
	c.client = ttrpc.NewClient(pc, o.clientOpts...)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		// ttrpc's server logs through the logger its context carries.
		logger := o.logger.WithField("pid", c.pid())
		_ = server.Serve(log.WithLogger(context.Background(), logger), boundedListener{l})
	}()
	m.Unblock()
	return c, nil
}

func (c *socketConn) service() api.PluginService { return api.NewPluginClient(c.client) }

func (c *socketConn) lost() <-chan struct{} { return c.mux.Done() }

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
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.proc.Exited():
	case <-t.C:
		return ""
	}
	if err := c.proc.ExitErr(); err != nil {
		return "plugin process: " + err.Error()
	}
	return "plugin process exited with status 0"
}

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
}
