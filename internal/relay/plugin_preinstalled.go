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
// that fails to start is skipped with a warning. The ID of each plugin
// found is reserved (plugin_reservations.go), whether it joins or not.
func (r *Relay) startPreinstalled(ctx context.Context) {
	if r.cfg.PluginPath == "" {
		return
	}
	if _, err := os.Stat(r.cfg.PluginPath); errors.Is(err, fs.ErrNotExist) {
		r.logCtx(ctx).WithField("path", r.cfg.PluginPath).Info("nrikit: no pre-installed plugins: the plugin directory does not exist")
		return
	}
	found, skipped, err := launch.Discover(r.cfg.PluginPath, r.cfg.PluginConfigPath)
	if err != nil {
		r.logCtx(ctx).WithError(err).Warn("nrikit: cannot list pre-installed plugins")
	}
	for _, s := range skipped {
		r.logCtx(ctx).WithField("path", s.Path).WithField("reason", s.Reason).Warn("nrikit: pre-installed plugin skipped")
		r.announce(nri.Change{Change: nri.Skipped, Plugin: filepath.Base(s.Path), Kind: nri.Preinstalled.String(), Reason: s.Reason})
	}
	for _, c := range found { // all reserved before any joins: reservations are the registry's, which joins check
		r.registry.reserve(c.ID(), candidateKind(c))
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
			r.launch(ctx, c)
		}()
	}
	if len(modules) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loadWASM(ctx, modules)
		}()
	}
	wg.Wait()
}

func (r *Relay) launch(ctx context.Context, c launch.Candidate) {
	proc, err := r.startProcess(c)
	if err != nil {
		r.joinFailed(ctx, nri.Preinstalled, 0, &nri.PluginError{Plugin: c.ID(), Op: nri.PhaseStart, Err: err})
		return
	}
	r.processJoinFailed(ctx, proc, r.connectSocket(ctx, proc.Conn(), &c, proc, nil))
}

// processJoinFailed is joinFailed for a launched plugin, with the last lines
// it wrote.
func (r *Relay) processJoinFailed(ctx context.Context, proc *launch.Process, err error) {
	if err != nil {
		r.reportJoinFailure(ctx, nri.Preinstalled, proc.Pid(), err, outputLines(proc.LastLines(exitGrace)))
	}
}

// candidateKind is the kind of plugin a file of the plugin path makes.
func candidateKind(c launch.Candidate) nri.Kind {
	if c.WASM {
		return nri.WASM
	}
	return nri.Preinstalled
}
