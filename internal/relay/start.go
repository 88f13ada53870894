// SPDX-License-Identifier: Apache-2.0

// Start and its steps: marking the relay started, opening the caller's endpoint, starting built-in
// and pre-installed plugins, opening the socket.

package relay

import (
	"context"
	"net"

	"github.com/nrikit/nrikit"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/sirupsen/logrus"
)

// Start connects the built-in and pre-installed plugins and, unless
// disabled, listens for external ones. It returns once the built-in and
// pre-installed plugins have joined or been dropped. Only ctx's values are
// used: its end does not stop the relay, Stop does. Stop may be called
// while Start runs: it ends the plugins' handshakes, and Start returns
// ErrStartInterrupted.
func (r *Relay) Start(ctx context.Context) error {
	runCtx, err := r.beginStart(ctx)
	if err != nil {
		return err
	}
	r.log.WithFields(logrus.Fields{"version": nrikit.Version, "nri_version": r.cfg.NRIVersion, "runtime": r.cfg.RuntimeName, "runtime_version": r.cfg.RuntimeVersion}).
		Info("nrikit: starting")
	l, err := r.startPlugins(runCtx)
	if err != nil {
		_ = r.Stop(ctx)
		return err
	}
	return r.serve(runCtx, l)
}

// beginStart marks the relay started and counts the start phase in
// r.wg, so that a Stop called meanwhile (Start holds no lock while plugins
// join, which takes up to their registration timeouts) cancels it and waits
// for it like any handshake. It starts the listings that bound the
// lifecycle records (sweepWhenOvergrown), which Stop waits for alike.
func (r *Relay) beginStart(ctx context.Context) (context.Context, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return nil, ErrAlreadyStarted
	}
	r.registry.open()
	r.updateCalls.start()
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel, r.runCtx = cancel, runCtx
	r.started = true
	r.readiness.Starting()
	r.wg.Add(2)
	go r.sweepWhenOvergrown(runCtx)
	return runCtx, nil
}

// startPlugins opens the caller's endpoint (the status socket), if any,
// then connects the built-in and pre-installed plugins and opens the
// socket, unless connections are disabled (nil listener). The endpoint
// comes first: a bad path fails Start before any plugin was launched.
func (r *Relay) startPlugins(runCtx context.Context) (net.Listener, error) {
	defer r.wg.Done()
	if err := r.openEndpoint(runCtx); err != nil {
		return nil, err
	}
	r.startBuiltins(runCtx)
	r.startPreinstalled(runCtx)
	if r.cfg.SocketPath == "" || runCtx.Err() != nil {
		return nil, nil
	}
	return accept.Listen(r.cfg.SocketPath, r.cfg.SocketGroup)
}

// serve accepts external plugins on l, unless Stop ended this start.
func (r *Relay) serve(runCtx context.Context, l net.Listener) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.runCtx != runCtx {
		if l != nil {
			_ = l.Close()
		}
		return ErrStartInterrupted
	}
	if l == nil {
		return nil
	}
	r.listener = l
	if !accept.PeerKnows.PID {
		r.log.Debug("nrikit: this OS does not report a connecting process's pid: external plugins are logged without one")
	}
	r.wg.Add(1)
	go r.acceptLoop(runCtx, l)
	return nil
}

// openEndpoint opens the caller's endpoint for the start runCtx belongs to,
// unless Stop ended that start meanwhile.
func (r *Relay) openEndpoint(runCtx context.Context) error {
	e := r.cfg.Endpoint
	if e == nil {
		return nil
	}
	if err := e.Open(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.runCtx != runCtx {
		e.Close()
		return ErrStartInterrupted
	}
	return nil
}
