// SPDX-License-Identifier: Apache-2.0

// The optional status endpoint on a unix socket: WithStatusSocket, and starting and stopping
// internal/status's server with the adaptation.

package adaptation

import (
	"errors"
	"sync"

	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/status"
)

// MaxStatusClients bounds the connections the status endpoint serves at
// once; a connection beyond it is closed as soon as it is accepted.
const MaxStatusClients = 16

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

// statusEndpoint is the status socket, opened by Start (before any plugin
// is launched, so that a bad path fails Start first) and closed by Stop.
type statusEndpoint struct {
	a  *Adaptation
	mu sync.Mutex
	s  *status.Server // nil when off or closed
}

// Open listens at the status socket's path, if one is set.
func (e *statusEndpoint) Open() error {
	path := e.a.opts.statusSocket
	if path == "" {
		return nil
	}
	l, err := accept.Listen(path, nil)
	if err != nil {
		return err
	}
	s := status.Serve(l, status.Answers{
		Status: func() any { return e.a.Status() },
		Record: func(id string) (any, bool) { return e.a.ContainerRecord(id) },
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	e.s = s
	return nil
}

// Close stops the status socket, if it runs.
func (e *statusEndpoint) Close() {
	e.mu.Lock()
	s := e.s
	e.s = nil
	e.mu.Unlock()
	s.Stop()
}
