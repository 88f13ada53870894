// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/mux"
	"github.com/nrikit/nrikit/internal/syncx"
)

const (
	// NRIVersion is what the plugin reports in RegisterPluginRequest.
	NRIVersion = "nrikit-testplugin"
	// RegistrationTimeout bounds the RegisterPlugin call, like the
	// reference stub's default.
	RegistrationTimeout = 5 * time.Second
	// ShutdownGrace is how long a plugin stays connected after Shutdown
	// for the runtime to close the connection. The plugin cannot tell when
	// its reply has been written (ttrpc does not say, and its Server.Shutdown
	// may cut a reply in flight), so it leaves that to the runtime and only
	// closes itself when the runtime does not.
	ShutdownGrace = time.Second
)

// ErrDisconnected is wrapped by Start's error when the runtime closed the
// connection before the registration finished; Run treats it as a clean end.
var ErrDisconnected = errors.New("nrikit: testplugin: runtime closed the connection")

// Plugin is a test plugin connected to a runtime over one trunk.
type Plugin struct {
	h       *Handler
	mux     *mux.Mux
	srv     *ttrpc.Server
	client  *ttrpc.Client
	runtime api.RuntimeService

	cancel    context.CancelFunc // of every served call's context
	serveDone chan struct{}
	closeOnce sync.Once
}

// Run is the plugin side of one connection: Start, then Wait. It returns nil
// when the runtime closes the connection or after a Shutdown call.
func Run(ctx context.Context, trunk net.Conn, cfg Config) error {
	_, err := run(ctx, trunk, cfg)
	return err
}

// run is Run, and tells whether the runtime asked the plugin to shut down.
func run(ctx context.Context, trunk net.Conn, cfg Config) (shutdown bool, err error) {
	p, err := Start(ctx, trunk, cfg)
	if errors.Is(err, ErrDisconnected) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if cfg.Flood != nil {
		go p.flood(ctx, cfg.Flood)
	}
	if cfg.UpdateLoop != nil {
		go p.updateLoop(ctx, cfg.UpdateLoop)
	}
	err = p.Wait(ctx)
	return syncx.Closed(p.h.ShutdownRequested()), err
}

// Start connects a plugin over trunk, which it then owns: it serves the Plugin
// service on mux connection 1, opens the Runtime client on connection 2 and
// registers, bounded by ctx and RegistrationTimeout. The service is served
// before RegisterPlugin is sent because the runtime's Configure may arrive
// before the RegisterPlugin reply. With a "Register"
// behaviour that hangs, Start returns without registering. ctx only bounds
// Start; the plugin then runs until Wait or Close ends it.
func Start(ctx context.Context, trunk net.Conn, cfg Config) (*Plugin, error) {
	h, err := NewHandler(cfg)
	if err != nil {
		trunk.Close()
		return nil, err
	}
	m := mux.New(trunk)
	l, err := m.Listen(mux.PluginServiceConn)
	if err != nil {
		m.Close()
		h.Close()
		return nil, fmt.Errorf("nrikit: testplugin: %w", err)
	}
	conn, err := m.Open(mux.RuntimeServiceConn)
	if err != nil {
		l.Close()
		m.Close()
		h.Close()
		return nil, fmt.Errorf("nrikit: testplugin: %w", err)
	}
	srv, err := ttrpc.NewServer()
	if err != nil {
		conn.Close()
		l.Close()
		m.Close()
		h.Close()
		return nil, fmt.Errorf("nrikit: testplugin: %w", err)
	}
	registerPluginService(srv, h)

	serveCtx, cancel := context.WithCancel(context.Background())
	client := ttrpc.NewClient(conn)
	p := &Plugin{
		h:         h,
		mux:       m,
		srv:       srv,
		client:    client,
		runtime:   cfg.runtimeClient(client),
		cancel:    cancel,
		serveDone: make(chan struct{}),
	}
	go func() {
		defer close(p.serveDone)
		srv.Serve(serveCtx, l) // ends when the listener or the mux closes
	}()

	if err := p.register(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// register calls RegisterPlugin unless the "Register" behaviour says
// otherwise.
func (p *Plugin) register(ctx context.Context) error {
	b := p.h.behaviours[KeyRegister]
	if b.delay > 0 && !syncx.Sleep(ctx, b.delay) {
		return ctx.Err()
	}
	if b.Exit != 0 {
		os.Exit(b.Exit)
	}
	if b.Hang {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, RegistrationTimeout)
	defer cancel()
	cfg := p.h.cfg
	_, err := p.runtime.RegisterPlugin(ctx, &api.RegisterPluginRequest{
		PluginName: cfg.Name,
		PluginIdx:  cfg.Index,
		NRIVersion: cfg.nriVersion(),
	})
	if err == nil {
		return nil
	}
	if errors.Is(err, ttrpc.ErrClosed) || syncx.Closed(p.mux.Done()) {
		err = fmt.Errorf("%w: %w", ErrDisconnected, err)
	}
	return fmt.Errorf("nrikit: testplugin %s: register: %w", api.PluginID(cfg.Index, cfg.Name), err)
}

// Handler returns the plugin's logic.
func (p *Plugin) Handler() *Handler { return p.h }

// UpdateContainers sends the runtime an unsolicited update and returns the
// updates it reports as failed.
func (p *Plugin) UpdateContainers(ctx context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	resp, err := p.runtime.UpdateContainers(ctx, &api.UpdateContainersRequest{Update: updates})
	if err != nil {
		return nil, err
	}
	return resp.GetFailed(), nil
}

// Wait blocks until the runtime closes the connection, or ctx is done, then
// closes the plugin. After a Shutdown call it waits at most ShutdownGrace for
// the runtime to close. A closed connection and a Shutdown are clean ends
// (nil); a cancelled ctx returns its error.
func (p *Plugin) Wait(ctx context.Context) error {
	defer p.Close()
	select {
	case <-p.mux.Done():
		return trunkError(p.mux.Err())
	case <-p.h.ShutdownRequested():
		t := time.NewTimer(ShutdownGrace)
		defer t.Stop()
		select {
		case <-p.mux.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// trunkError tells a runtime that went away (nil) from a broken trunk.
func trunkError(err error) error {
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, mux.ErrClosed),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return nil
	}
	return fmt.Errorf("nrikit: testplugin: connection: %w", err)
}

// Close disconnects the plugin, ends calls in progress and waits for the
// plugin's goroutines to stop. It is idempotent.
func (p *Plugin) Close() error {
	p.closeOnce.Do(func() {
		p.cancel()
		p.srv.Close()
		p.client.Close()
		p.mux.Close()
		<-p.serveDone
		p.h.Close()
	})
	return nil
}
