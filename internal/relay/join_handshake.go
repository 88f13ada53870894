// SPDX-License-Identifier: Apache-2.0

// A plugin's handshake: register, configure, synchronize, then watch its connection.

package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/syncx"
)

// connectSocket registers, configures and synchronizes the plugin on trunk.
// cand and proc are set for pre-installed plugins, whose identity comes from
// their file name; ext for an external one, whose peer may be bound by the
// operator's rules.
func (r *Relay) connectSocket(ctx context.Context, trunk net.Conn, cand *launch.Candidate, proc *launch.Process, ext *external) error {
	arrived := r.lifecycle.Now()
	var peer *accept.Peer
	if ext != nil {
		peer = &ext.peer
	}
	rs := newRuntimeService(r, peer)
	rs.rev.stopping = ctx.Done()
	conn, err := dialSocketConn(trunk, proc, rs, &r.cfg, candidateID(cand))
	if err != nil {
		_ = trunk.Close()
		if proc != nil {
			_ = proc.Kill()
		}
		return &nri.PluginError{Plugin: candidateID(cand), Op: nri.PhaseRegister, Err: err}
	}
	joining := r.cfg.Joining.Begin(candidateID(cand), conn.PID(), nri.PhaseRegister)
	defer joining.End()
	reg, err := rs.await(ctx, r.cfg.Registration, conn.Lost(), conn.Unanswered)
	if err != nil {
		err = withExitStatus(conn.WithTrunkError(err), conn)
		conn.Close()
		return &nri.PluginError{Plugin: refusedID(cand, reg), Op: nri.PhaseRegister, Err: err}
	}
	if ext != nil {
		ext.registered()
	}
	kind, idx, name, config := nri.External, reg.GetPluginIdx(), reg.GetPluginName(), ""
	if cand != nil {
		kind, idx, name, config = nri.Preinstalled, cand.Index, cand.Name, cand.Config
	}
	rev := rs.rev.revision()
	p := r.newPlugin(idx, name, kind, conn.Service(rev), conn)
	p.speak(rev)
	p.config = config
	p.arrived = arrived
	p.joining = joining
	if ext != nil {
		p.peer = &rs.peer
	}
	conn.Registered(p.log)
	if err := rs.attach(p); err != nil {
		return r.abandon(p, nri.PhaseRegister, err)
	}
	p.log.WithField("nri_version", versionOrUnknown(reg.GetNRIVersion())).Debug("nrikit: plugin registered")
	return r.handshake(ctx, p)
}

// handshake configures and synchronizes a registered plugin, and makes it
// active. A failed phase drops it.
func (r *Relay) handshake(ctx context.Context, p *plugin) error {
	if p.inProcess() {
		p.arrived = r.lifecycle.Now()
	}
	if p.joining == nil { // built-in or WASM: its handshake starts here; a socket plugin's began with its connection, which ends it
		p.joining = r.cfg.Joining.Begin(p.id, p.conn.PID(), nri.PhaseConfigure)
		defer p.joining.End()
	}
	r.applySettings(p)
	r.observe(p)
	p.joining.Enter(p.id, nri.PhaseConfigure)
	if err := r.configure(ctx, p); err != nil {
		return r.abandon(p, nri.PhaseConfigure, err)
	}
	defer r.budget.Settle(p) // joined or failed: no longer pending
	p.joining.Enter(p.id, nri.PhaseSynchronize)
	synchronized := r.readiness.Synchronizing(p.id)
	err := r.synchronizeAndJoin(ctx, p)
	synchronized()
	if err != nil {
		if p.kind == nri.External && errors.Is(err, ErrPluginTimeout) {
			r.syncBackoff.TimedOut(p.id)
		}
		return r.abandon(p, nri.PhaseSynchronize, err)
	}
	r.leaveIfViolated(p)
	r.watch(ctx, p)
	return nil
}

// abandon disconnects a plugin that failed a handshake phase. When its
// connection is gone, a launched plugin has likely exited on its own, and
// its exit status explains more than the closed connection.
func (r *Relay) abandon(p *plugin, phase string, err error) error {
	if connectionLost(p.conn) {
		err = withExitStatus(err, p.conn)
	}
	if pe := panicOf(p); pe != nil && panicIn(err) == nil {
		err = fmt.Errorf("%w: %w", err, pe) // nrikit closed it: the peer did not simply hang up
	}
	p.close()
	r.forget(p) // what its catch-up may have recorded
	return &nri.PluginError{Plugin: p.id, Op: phase, Err: p.explainAbandon(err), Revision: p.revisionName()}
}

func connectionLost(t transport) bool { return syncx.Closed(t.Lost()) }

func (r *Relay) configure(ctx context.Context, p *plugin) error {
	req := &api.ConfigureRequest{
		Config:              p.config,
		RuntimeName:         r.cfg.RuntimeName,
		RuntimeVersion:      r.cfg.RuntimeVersion,
		RegistrationTimeout: r.cfg.Registration.Milliseconds(),
		RequestTimeout:      p.timeout.Milliseconds(),
		NRIVersion:          r.cfg.NRIVersion,
	}
	var rsp *api.ConfigureResponse
	err := p.invoke(ctx, p.timeout, func(ctx context.Context) (err error) {
		rsp, err = p.svc.Configure(ctx, req)
		return err
	})
	if err != nil {
		return err
	}
	events, err := api.EventMask(rsp.GetEvents()).Effective()
	if err != nil {
		return err
	}
	p.events = events
	p.policy, p.policyFrom = r.effectivePolicy(p, p.rev.DeclaredPolicy(rsp))
	return r.budget.Admit(p, p.log)
}

// watch drops the plugin when its connection is lost while idle.
func (r *Relay) watch(ctx context.Context, p *plugin) {
	lost := p.conn.Lost()
	if lost == nil {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		select {
		case <-lost:
			// A call in flight fails on the lost connection and its
			// delivery drops the plugin once it kept the call's error,
			// so that the plugin's leaving reports it.
			if p.eventInFlight() == "" {
				r.drop(context.Background(), p, "", failLost) // noticed by nrikit, not in a runtime's call
			}
		case <-p.closed:
		case <-ctx.Done():
		}
	}()
}

// exitGrace is how long nrikit waits to learn how the process of a plugin
// whose connection is gone ended, to report its exit status. A crashed
// plugin has exited by the time its socket reports EOF, and a killed one is
// reaped at once, so the wait is short unless a process will not die.
const exitGrace = 250 * time.Millisecond

func withExitStatus(err error, t transport) error {
	if note := exitNote(t); note != "" {
		return fmt.Errorf("%w%s", err, note)
	}
	return err
}

// exitNote is " (how the plugin's process ended)", or "" if unknown.
func exitNote(t transport) string {
	if status := t.ExitStatus(exitGrace); status != "" {
		return " (" + status + ")"
	}
	return ""
}

// refusedID names a plugin whose registration failed: by its file for a
// pre-installed one, by the identity it asked for when that is a valid one
// (refused for another reason), "unregistered" otherwise.
func refusedID(cand *launch.Candidate, reg *api.RegisterPluginRequest) string {
	if cand != nil || reg == nil || api.ValidatePluginIdentity(reg.GetPluginIdx(), reg.GetPluginName()) != nil {
		return candidateID(cand)
	}
	return api.PluginID(reg.GetPluginIdx(), reg.GetPluginName())
}

func candidateID(c *launch.Candidate) string {
	if c == nil {
		return nri.Unregistered
	}
	return c.ID()
}

func versionOrUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}
