// SPDX-License-Identifier: Apache-2.0

// RestartPlugin: replacing a pre-installed plugin with a new process.

package relay

import (
	"context"
	"errors"
	"fmt"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
)

// ErrNotRestartable is wrapped by RestartPlugin's error for a plugin that
// nrikit did not start from the plugin path, so that it cannot start it
// again.
var ErrNotRestartable = errors.New("nrikit: only a pre-installed plugin can be restarted")

// RestartPlugin restarts the pre-installed plugin id (idx-name): it leaves
// the dispatch list, gets Shutdown(nri.ReasonRestarted) and its process ends
// (SIGTERM, then SIGKILL when ctx ends), then it is launched again from the
// plugin path with its current config, as Start launches it. A
// pre-installed plugin that crashed or was dropped is launched again the
// same way. The new instance registers, is configured and synchronizes like
// any joining plugin: its snapshot holds the pods and containers alive
// then. Its ID stays reserved throughout (plugin_reservations.go): no
// external connection takes it meanwhile. RestartPlugin returns once the
// new instance has joined, or with why it did not (that is also reported
// as a nri.Change). External, builtin and WASM plugins cannot be
// restarted: nrikit did not start their processes. A plugin whose file is
// gone from the plugin path is no longer installed: its ID is released.
func (r *Relay) RestartPlugin(ctx context.Context, id string) error {
	r.mu.Lock()
	if !r.started {
		r.mu.Unlock()
		return fmt.Errorf("nrikit: restarting %s: the adaptation is not started", id)
	}
	runCtx := r.runCtx
	r.wg.Add(1) // Stop waits for the restart
	r.mu.Unlock()
	defer r.wg.Done()

	if err := r.restartable(id); err != nil {
		return fmt.Errorf("nrikit: restarting %s: %w", id, err)
	}
	if !r.registry.beginRestart(id) {
		return fmt.Errorf("nrikit: restarting %s: a restart of it is in progress", id)
	}
	defer r.registry.endRestart(id)
	cand, err := r.candidate(id)
	if errors.Is(err, errNotInstalled) {
		r.registry.release(id)
	}
	if err != nil {
		return fmt.Errorf("nrikit: restarting %s: %w", id, err)
	}
	defer r.readiness.Restarting(id)()
	if p := r.active(id); p != nil && r.registry.remove(p) {
		r.cfg.Metrics.PluginCount(r.registry.len())
		r.shutdownAll(ctx, []*plugin{p}, nri.ReasonRestarted)
	}
	proc, err := r.startProcess(cand)
	if err != nil {
		err = &nri.PluginError{Plugin: id, Op: nri.PhaseStart, Err: err}
		r.joinFailed(runCtx, nri.Preinstalled, 0, err)
		return err
	}
	err = r.connectSocket(runCtx, proc.Conn(), &cand, proc, nil)
	r.processJoinFailed(runCtx, proc, err)
	return err
}

// restartable says why id cannot be restarted: no plugin has it, or its
// plugin is not one nrikit launched from the plugin path.
func (r *Relay) restartable(id string) error {
	kind, reserved := r.registry.reservedKind(id)
	if !reserved {
		if p := r.active(id); p != nil {
			kind = p.kind
		} else {
			return errors.New("no such plugin")
		}
	}
	if kind != nri.Preinstalled {
		return fmt.Errorf("it is %s: %w", kind, ErrNotRestartable)
	}
	return nil
}

// active finds an active plugin by id.
func (r *Relay) active(id string) *plugin {
	for _, p := range r.registry.all() {
		if p.id == id {
			return p
		}
	}
	return nil
}

// errNotInstalled: the plugin path has no executable for a plugin any more.
var errNotInstalled = errors.New("no executable for it in the plugin path any more: it is no longer installed, and its ID is free")

// candidate finds id's file in the plugin path, as Start would.
func (r *Relay) candidate(id string) (launch.Candidate, error) {
	found, _, err := launch.Discover(r.cfg.PluginPath, r.cfg.PluginConfigPath)
	for _, c := range found {
		if c.ID() == id && !c.WASM {
			return c, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("%s: %w", r.cfg.PluginPath, errNotInstalled)
	}
	return launch.Candidate{}, err
}
