// SPDX-License-Identifier: Apache-2.0

// Launching pre-installed plugins from the plugin path.

package relay

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
)

// startPreinstalled launches the plugins of the plugin path concurrently,
// loads its WASM modules in-process, and waits until each has joined or been
// dropped. A bad file name or a plugin
// that fails to start is skipped with a warning.
func (a *Relay) startPreinstalled(ctx context.Context) {
	if a.cfg.PluginPath == "" {
		return
	}
	if _, err := os.Stat(a.cfg.PluginPath); errors.Is(err, fs.ErrNotExist) {
		a.logCtx(ctx).WithField("path", a.cfg.PluginPath).Info("nrikit: no pre-installed plugins: the plugin directory does not exist")
		return
	}
	found, skipped, err := launch.Discover(a.cfg.PluginPath, a.cfg.PluginConfigPath)
	if err != nil {
		a.logCtx(ctx).WithError(err).Warn("nrikit: cannot list pre-installed plugins")
	}
	for _, s := range skipped {
		a.logCtx(ctx).WithField("path", s.Path).WithField("reason", s.Reason).Warn("nrikit: pre-installed plugin skipped")
		a.announce(nri.Change{Change: nri.Skipped, Plugin: filepath.Base(s.Path), Kind: nri.Preinstalled.String(), Reason: s.Reason})
	}
	var wg sync.WaitGroup
	var modules []launch.Candidate
	for _, c := range found {
		if c.WASM {
			modules = append(modules, c)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.launch(ctx, c)
		}()
	}
	if len(modules) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.loadWASM(ctx, modules)
		}()
	}
	wg.Wait()
}

func (a *Relay) launch(ctx context.Context, c launch.Candidate) {
	proc, err := a.startProcess(c)
	if err != nil {
		a.joinFailed(ctx, nri.Preinstalled, 0, &nri.PluginError{Plugin: c.ID(), Op: nri.PhaseStart, Err: err})
		return
	}
	a.processJoinFailed(ctx, proc, a.connectSocket(ctx, proc.Conn(), &c, proc, nil))
}

// processJoinFailed is joinFailed for a launched plugin, with the last lines
// it wrote.
func (a *Relay) processJoinFailed(ctx context.Context, proc *launch.Process, err error) {
	if err != nil {
		a.reportJoinFailure(ctx, nri.Preinstalled, proc.Pid(), err, outputLines(proc.LastLines(exitGrace)))
	}
}
