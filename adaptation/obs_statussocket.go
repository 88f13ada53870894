// SPDX-License-Identifier: Apache-2.0

// The optional status endpoint on a unix socket: WithStatusSocket, and starting and stopping
// internal/status's server with the adaptation.

package adaptation

import (
	"context"
	"errors"

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

// startStatusServer listens at a.opts.statusSocket, if set; nil if not.
func (a *Adaptation) startStatusServer() (*status.Server, error) {
	if a.opts.statusSocket == "" {
		return nil, nil
	}
	l, err := accept.Listen(a.opts.statusSocket, nil)
	if err != nil {
		return nil, err
	}
	return status.Serve(l, status.Answers{
		Status: func() any { return a.Status() },
		Record: func(id string) (any, bool) { return a.ContainerRecord(id) },
	}), nil
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
		s.Stop()
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
	s.Stop()
}
