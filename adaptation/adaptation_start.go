// SPDX-License-Identifier: Apache-2.0

// Start's steps: marking the adaptation started, starting built-in and pre-installed plugins,
// opening the socket.

package adaptation

import (
	"context"
	"net"

	"github.com/nrikit/nrikit/internal/accept"
)

// beginStart marks the adaptation started and counts the start phase in
// a.wg, so that a Stop called meanwhile (Start holds no lock while plugins
// join, which takes up to their registration timeouts) cancels it and waits
// for it like any handshake. It starts the listings that bound the
// lifecycle records (sweepWhenOvergrown), which Stop waits for alike.
func (a *Adaptation) beginStart(ctx context.Context) (context.Context, error) {
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

// startPlugins opens the status socket, if set, then connects the built-in
// and pre-installed plugins and opens the socket, unless connections are
// disabled (nil listener). The status socket comes first: a bad path fails
// Start before any plugin was launched.
func (a *Adaptation) startPlugins(runCtx context.Context) (net.Listener, error) {
	defer a.wg.Done()
	if err := a.openStatusSocket(runCtx); err != nil {
		return nil, err
	}
	a.startBuiltins(runCtx)
	a.startPreinstalled(runCtx)
	if a.opts.disableConnect || runCtx.Err() != nil {
		return nil, nil
	}
	return accept.Listen(a.opts.socketPath, a.opts.socketGroup)
}

// serve accepts external plugins on l, unless Stop ended this start.
func (a *Adaptation) serve(runCtx context.Context, l net.Listener) error {
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
