// SPDX-License-Identifier: Apache-2.0

// The optional status endpoint: Status and ContainerRecord over HTTP on a unix socket.

package adaptation

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/accept"
)

// MaxStatusClients bounds the connections the status endpoint serves at
// once; a connection beyond it is closed as soon as it is accepted.
const MaxStatusClients = 16

// Timeouts of the status endpoint's connections: a client that does not
// send its request, or read the answer, in time is disconnected, and an
// idle kept-alive one makes room.
const (
	statusReadTimeout  = 5 * time.Second
	statusWriteTimeout = 10 * time.Second
	statusIdleTimeout  = 5 * time.Second
)

// WithStatusSocket serves, on a unix socket at path, a read-only HTTP
// endpoint: GET /v1/status answers Status as JSON, GET
// /v1/containers/{id} a ContainerRecord (404 when there is none); other
// paths answer 404, other methods 405. The socket is created at Start with
// the plugin socket's rules (its directory 0700, a stale socket replaced,
// anything else refused with ErrBadSocketPath), mode 0600, and removed by
// Stop. At most MaxStatusClients connections are served at once. Off by
// default; a runtime with its own introspection calls Status instead.
func WithStatusSocket(path string) Option {
	return func(o *options) error {
		if path == "" {
			return errors.New("nrikit: empty status socket path")
		}
		o.statusSocket = path
		return nil
	}
}

// statusServer is the status endpoint while the adaptation runs.
type statusServer struct {
	srv  *http.Server
	done chan struct{} // closed when Serve returned
}

// startStatusServer listens at a.opts.statusSocket, if set; nil if not.
func (a *Adaptation) startStatusServer() (*statusServer, error) {
	if a.opts.statusSocket == "" {
		return nil, nil
	}
	l, err := accept.Listen(a.opts.statusSocket, nil)
	if err != nil {
		return nil, err
	}
	s := &statusServer{
		srv: &http.Server{
			Handler:           a.statusHandler(),
			ReadHeaderTimeout: statusReadTimeout,
			ReadTimeout:       statusReadTimeout,
			WriteTimeout:      statusWriteTimeout,
			IdleTimeout:       statusIdleTimeout,
			MaxHeaderBytes:    8 << 10,
		},
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(newLimitListener(l, MaxStatusClients))
	}()
	return s, nil
}

// openStatusSocket starts the status endpoint of the start runCtx belongs
// to, unless Stop ended that start meanwhile.
func (a *Adaptation) openStatusSocket(runCtx context.Context) error {
	s, err := a.startStatusServer()
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.started || a.runCtx != runCtx {
		s.stop()
		return ErrStartInterrupted
	}
	a.statusServer = s
	return nil
}

// closeStatusSocket stops the status endpoint, if it runs.
func (a *Adaptation) closeStatusSocket() {
	a.mu.Lock()
	s := a.statusServer
	a.statusServer = nil
	a.mu.Unlock()
	s.stop()
}

// stop closes the listener and every connection, and waits until no
// goroutine of the endpoint is left.
func (s *statusServer) stop() {
	if s == nil {
		return
	}
	_ = s.srv.Close()
	<-s.done
	// Close does not wait for handlers; Shutdown does, and with every
	// connection closed it returns as soon as they did.
	_ = s.srv.Shutdown(context.Background())
}

func (a *Adaptation) statusHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, a.Status())
	})
	mux.HandleFunc("GET /v1/containers/{id}", func(w http.ResponseWriter, r *http.Request) {
		rec, ok := a.ContainerRecord(r.PathValue("id"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no record of this container"})
			return
		}
		writeJSON(w, http.StatusOK, rec)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away: nothing to tell it
}

// limitListener closes at once the connections accepted beyond max open
// ones, so that a flood of clients costs neither goroutines nor memory.
type limitListener struct {
	net.Listener
	slots chan struct{}
}

func newLimitListener(l net.Listener, max int) net.Listener {
	return &limitListener{Listener: l, slots: make(chan struct{}, max)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			_ = c.Close()
		}
	}
}

// limitedConn gives its slot back once closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
