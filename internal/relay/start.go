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
func (a *Relay) Start(ctx context.Context) error {
	runCtx, err := a.beginStart(ctx)
	if err != nil {
		return err
	}
	a.log.WithFields(logrus.Fields{"version": nrikit.Version, "nri_version": a.cfg.NRIVersion, "runtime": a.cfg.RuntimeName, "runtime_version": a.cfg.RuntimeVersion}).
		Info("nrikit: starting")
	l, err := a.startPlugins(runCtx)
	if err != nil {
		_ = a.Stop(ctx)
		return err
	}
	return a.serve(runCtx, l)
}

// beginStart marks the relay started and counts the start phase in
// a.wg, so that a Stop called meanwhile (Start holds no lock while plugins
// join, which takes up to their registration timeouts) cancels it and waits
// for it like any handshake. It starts the listings that bound the
// lifecycle records (sweepWhenOvergrown), which Stop waits for alike.
func (a *Relay) beginStart(ctx context.Context) (context.Context, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started {
		return nil, ErrAlreadyStarted
	}
	a.registry.open()
	a.updateCalls.start()
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel, a.runCtx = cancel, runCtx
	a.started = true
	a.readiness.Starting()
	a.wg.Add(2)
	go a.sweepWhenOvergrown(runCtx)
	return runCtx, nil
}

// startPlugins opens the caller's endpoint (the status socket), if any,
// then connects the built-in and pre-installed plugins and opens the
// socket, unless connections are disabled (nil listener). The endpoint
// comes first: a bad path fails Start before any plugin was launched.
func (a *Relay) startPlugins(runCtx context.Context) (net.Listener, error) {
	defer a.wg.Done()
	if err := a.openEndpoint(runCtx); err != nil {
		return nil, err
	}
	a.startBuiltins(runCtx)
	a.startPreinstalled(runCtx)
	if a.cfg.SocketPath == "" || runCtx.Err() != nil {
		return nil, nil
	}
	return accept.Listen(a.cfg.SocketPath, a.cfg.SocketGroup)
}

// serve accepts external plugins on l, unless Stop ended this start.
func (a *Relay) serve(runCtx context.Context, l net.Listener) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.started || a.runCtx != runCtx {
		if l != nil {
			_ = l.Close()
		}
		return ErrStartInterrupted
	}
	if l == nil {
		return nil
	}
	a.listener = l
	if !accept.PeerPIDSupported {
		a.log.Debug("nrikit: this OS does not report a connecting process's pid: external plugins are logged without one")
	}
	a.wg.Add(1)
	go a.acceptLoop(runCtx, l)
	return nil
}

// openEndpoint opens the caller's endpoint for the start runCtx belongs to,
// unless Stop ended that start meanwhile.
func (a *Relay) openEndpoint(runCtx context.Context) error {
	e := a.cfg.Endpoint
	if e == nil {
		return nil
	}
	if err := e.Open(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.started || a.runCtx != runCtx {
		e.Close()
		return ErrStartInterrupted
	}
	return nil
}
