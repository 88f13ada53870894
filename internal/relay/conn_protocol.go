// SPDX-License-Identifier: Apache-2.0

// Which revision a connection speaks, and dropping a plugin that breaks the protocol.

package relay

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/containerd/ttrpc"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/pluginconn"
)

// connRevision is the revision a plugin connection speaks: that of the first
// RegisterPlugin the plugin calls. A call on another revision's service later
// is a protocol error that drops the plugin.
type connRevision struct {
	mu        sync.Mutex
	rev       *pluginconn.Revision
	violation error
	plugin    *plugin         // once attached
	stopping  <-chan struct{} // closed when the runtime stops
}

// revision is the connection's revision, nil before RegisterPlugin.
func (c *connRevision) revision() *pluginconn.Revision {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rev
}

// claim fixes the connection's revision at the first RegisterPlugin, and
// checks every later call against it.
func (c *connRevision) claim(r *pluginconn.Revision, method string, registering bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.rev == nil && registering:
		c.rev = r
		return nil
	case c.rev == nil, c.rev == r:
		return nil
	}
	return fmt.Errorf("nrikit: plugin registered on revision %s called %s/%s; one connection speaks one revision",
		c.rev.Name, r.RuntimeService, method)
}

// violated records a protocol error and returns the plugin to drop for it:
// nil when it has not been attached yet (attach then refuses it) or an
// earlier violation already dropped it.
func (c *connRevision) violated(err error) *plugin {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.violation != nil {
		return nil
	}
	c.violation = err
	return c.plugin
}

// revisionRuntime is the Runtime service of one revision on one connection.
type revisionRuntime struct {
	s   *runtimeService
	rev *pluginconn.Revision
}

func (r revisionRuntime) RegisterPlugin(ctx context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	if err := r.check("RegisterPlugin", true); err != nil {
		return nil, err
	}
	return r.s.RegisterPlugin(ctx, req)
}

func (r revisionRuntime) UpdateContainers(ctx context.Context, req *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	if err := r.check("UpdateContainers", false); err != nil {
		return nil, err
	}
	return r.s.UpdateContainers(ctx, req)
}

// check lets a call through on the connection's own revision; on another it
// answers the error and drops the plugin.
func (r revisionRuntime) check(method string, registering bool) error {
	err := r.s.rev.claim(r.rev, method, registering)
	if err == nil {
		return nil
	}
	if p := r.s.rev.violated(err); p != nil {
		p.markViolation(err) // before the reply: no call reaches p after it
		go r.s.relay.dropForProtocolError(p, err, r.s.rev.stopping)
	}
	return status.Error(codes.FailedPrecondition, err.Error())
}

// registerRuntimeServices serves every revision's Runtime service on one
// plugin connection, each bound to its revision.
func registerRuntimeServices(server *ttrpc.Server, rs *runtimeService) {
	for _, r := range pluginconn.Revisions {
		r.Register(server, revisionRuntime{s: rs, rev: r})
	}
}

// speak sets the revision p's connection speaks; every log line of p names it.
func (p *plugin) speak(r *pluginconn.Revision) {
	p.rev = r
	p.log = p.log.WithField("revision", r.Name)
}

// revisionName is the revision p speaks, "" for in-process plugins, which
// speak none.
func (p *plugin) revisionName() string {
	if p.kind == nri.Builtin {
		return ""
	}
	return p.rev.Name
}

// attach binds the registered plugin to its connection's Runtime service. It
// fails if the plugin already broke the protocol.
func (s *runtimeService) attach(p *plugin) error {
	s.rev.mu.Lock()
	defer s.rev.mu.Unlock()
	s.rev.plugin = p
	s.plugin.Store(p)
	p.markViolation(s.rev.violation)
	return s.rev.violation
}

// markViolation remembers the protocol error that dropped p, so that a
// handshake it cut short reports it rather than the closed connection.
func (p *plugin) markViolation(err error) {
	if err != nil {
		p.violation.CompareAndSwap(nil, &err)
	}
}

// explainAbandon is err, or the protocol error that caused it.
func (p *plugin) explainAbandon(err error) error {
	if v := p.violation.Load(); v != nil {
		return *v
	}
	return err
}

// violationGrace is how long a plugin dropped for a protocol error stays
// connected for the error reply to reach it, unless it disconnects first.
const violationGrace = time.Second

// dropForProtocolError drops p for calling another revision's service. It
// takes no more calls and leaves the dispatch list at once; its connection
// is closed once it has read the error (it disconnects) or violationGrace
// has passed.
func (r *Relay) dropForProtocolError(p *plugin, err error, stopping <-chan struct{}) {
	p.markViolation(err)
	if r.registry.remove(p) {
		r.forget(p)
		r.reportProtocolDrop(p, err)
	}
	// Otherwise it has not joined: its handshake fails, or it joins and
	// leaves at once (leaveIfViolated), and that reports it.
	t := time.NewTimer(violationGrace)
	defer t.Stop()
	select {
	case <-p.conn.Lost():
	case <-t.C:
	case <-stopping:
	}
	p.close()
}

// leaveIfViolated takes p out of the dispatch list again if it broke the
// protocol while it joined, after dropForProtocolError looked for it there.
func (r *Relay) leaveIfViolated(p *plugin) {
	if v := p.violation.Load(); v != nil && r.registry.remove(p) {
		r.forget(p)
		r.reportProtocolDrop(p, *v)
	}
}

func (r *Relay) reportProtocolDrop(p *plugin, err error) {
	reason := "protocol error: " + err.Error()
	r.cfg.Metrics.PluginCount(r.registry.len())
	p.log.WithField("reason", reason).Warn("nrikit: plugin dropped")
	r.reportLeft(p, "", reason)
}
