// SPDX-License-Identifier: Apache-2.0

// The plugin type: one connected plugin of any kind, and invoking it.

package relay

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/identity"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/pluginconn"
	"github.com/nrikit/nrikit/internal/ratelog"
	"github.com/nrikit/nrikit/internal/scope"
	"github.com/nrikit/nrikit/internal/status"
	"github.com/nrikit/nrikit/internal/syncx"
)

// transport is the connection behind a plugin.
type transport interface {
	// Lost is closed when the connection is gone for good; nil if it cannot
	// be lost (in-process plugins).
	Lost() <-chan struct{}
	// Close tears the connection down at once (and kills a launched process).
	Close()
	// Stop ends the connection gracefully within ctx: a launched process is
	// asked to terminate before it is killed (then Stop says so).
	Stop(ctx context.Context) error
	PID() int
	// ExitStatus says how a launched plugin's process ended, waiting up to
	// wait for it to end; "" when there is no process or it still runs.
	ExitStatus(wait time.Duration) string
	// Output is the last lines a launched plugin wrote; nil for others.
	Output() []nri.OutputLine
}

// plugin is one connected plugin. It handles one request at a time.
type plugin struct {
	idx, name, id string
	kind          nri.Kind
	svc           api.PluginService
	conn          transport
	config        string

	// Set by Configure, read-only afterwards.
	events api.EventMask
	policy nri.FailurePolicy

	// Set at registration from the operator's settings (plugin_settings.go),
	// read-only afterwards: each call's own timeout, and where it and
	// policy came from.
	timeout                 time.Duration
	timeoutFrom, policyFrom string
	// settingsKey is the plugin_settings key that applies to it, "" if
	// none, set when it is made; peer is an external plugin's, as told at
	// its registration (join_identity.go), nil for others, set before it
	// joins.
	settingsKey string
	peer        *identity.Peer
	peerRules   *identity.Rules // those its peer matched, nil if none
	// allow is what the operator allows it to change (scope.go), All
	// unless limited, set when it is made; scopeLog bounds the warnings of
	// a limited one.
	allow    scope.Set
	scopeLog *ratelog.Limiter

	busy  chan struct{} // one slot: the request in progress
	clock callClock     // ends its calls at their own deadlines (socket plugins)
	// joinReported is closed once the plugin's joining has been reported,
	// which its leaving must follow.
	joinReported chan struct{}
	inFlight     atomic.Uint64 // the delivery in progress: sequence<<32 | api.Event; 0 if none
	delivered    atomic.Uint32 // sequence numbers of deliveries
	closed       chan struct{}
	closeOnce    sync.Once
	compat       compatState
	rev          *pluginconn.Revision         // the protocol revision it speaks
	violation    atomic.Pointer[error]        // the protocol error that dropped it
	panicked     atomic.Pointer[panics.Error] // the panic a call to it caused
	log          *logrus.Entry
	// logFromContext, when the runtime gave one, makes the entry of a line
	// about a call the runtime made (logCtx).
	logFromContext func(context.Context) *logrus.Entry
	slowLog        *ratelog.Limiter  // lines about answers late but in time
	stats          *status.Counters  // its calls, for Status
	joining        *status.Handshake // its handshake, while in it, for Status

	// arrived is the lifecycle clock when it connected (in-process: when its
	// handshake began); its sync bridges only what happened since (internal/lifecycle/unlisted.go).
	arrived uint64

	// rollout is what the operator chose for its rollout: observer, dry
	// run, scope of pods (rollout.go).
	rollout rollout
}

// newPlugin is newPlugin with the runtime's way to log a call's lines, and
// the operator's settings key and scope for it: they are set before the
// plugin can call the runtime (its UpdateContainers may come as soon as it
// registered), and never change.
func (r *Relay) newPlugin(idx, name string, kind nri.Kind, svc api.PluginService, conn transport) *plugin {
	p := newPlugin(idx, name, kind, svc, conn, r.log)
	p.logFromContext = r.cfg.LogFromContext
	s, key, _ := r.cfg.settingsOf(p.id, p.name)
	p.settingsKey = key
	p.applyScope(s)
	return p
}

// fallbackTimeout bounds a plugin's calls until its handshake gives it its
// own timeout (applySettings): the runtime's default request timeout.
const fallbackTimeout = 2 * time.Second

func newPlugin(idx, name string, kind nri.Kind, svc api.PluginService, conn transport, log *logrus.Entry) *plugin {
	id := api.PluginID(idx, name)
	return &plugin{
		idx:          idx,
		name:         name,
		id:           id,
		kind:         kind,
		svc:          svc,
		conn:         conn,
		busy:         make(chan struct{}, 1),
		joinReported: make(chan struct{}),
		closed:       make(chan struct{}),
		rev:          pluginconn.V1alpha1,
		timeout:      fallbackTimeout, // the runtime's, or the operator's, from its handshake (applySettings)
		timeoutFrom:  FromDefault,
		policyFrom:   FromDefault,
		log:          log.WithField("plugin", id),
		slowLog:      newSlowLog(),
		allow:        scope.All, // the operator's, when the relay makes it (Relay.newPlugin)
		stats:        &status.Counters{},
	}
}

func (p *plugin) subscribed(e api.Event) bool { return p.events.Has(e) }

// ID, Takes and Timeout are what internal/admission asks of a plugin
// (admission.Plugin).
func (p *plugin) ID() string             { return p.id }
func (p *plugin) Takes(e api.Event) bool { return p.subscribed(e) && p.rollout.waitedFor(e) }
func (p *plugin) Timeout() time.Duration { return p.timeout }

// inProcess tells whether the plugin runs in the runtime's process, where
// the call's own deadline is passed on for it (withOwnDeadline).
func (p *plugin) inProcess() bool { return p.kind == nri.Builtin || p.kind == nri.WASM }

// eventInFlight names the event the plugin is handling, "" if none: a
// connection lost meanwhile is reported with it, whoever notices first.
func (p *plugin) eventInFlight() string {
	if ev := api.Event(uint32(p.inFlight.Load())); ev != api.Event_UNKNOWN {
		return ev.Name()
	}
	return ""
}

// handling marks ev as in flight until the returned func is called. Each
// delivery has its own token, so the end of one cannot clear the mark of
// the next delivery of the same event.
func (p *plugin) handling(ev api.Event) (mark, done func()) {
	token := uint64(p.delivered.Add(1))<<32 | uint64(uint32(ev))
	return func() { p.inFlight.Store(token) }, func() { p.inFlight.CompareAndSwap(token, 0) }
}

// gone tells whether the plugin was closed or its connection lost, even if
// nrikit has not dropped it yet.
func (p *plugin) gone() bool {
	if p.isClosed() {
		return true
	}
	return p.conn != nil && syncx.Closed(p.conn.Lost())
}

func (p *plugin) isClosed() bool { return syncx.Closed(p.closed) }

// invoke runs fn as this plugin's one request in progress, with timeout
// counted from now: waiting for an earlier request of a slow plugin counts
// against it, so a plugin cannot stretch an event beyond its deadline.
func (p *plugin) invoke(ctx context.Context, timeout time.Duration, fn func(context.Context) error) error {
	start := time.Now()
	callerFirst := callerDeadlineFirst(ctx, timeout)
	if p.inProcess() {
		ctx = withOwnDeadline(ctx, start.Add(timeout))
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, ErrPluginTimeout)
		defer cancel()
	} else {
		var call callEnd
		ctx, call = p.clock.withDeadline(ctx, start.Add(timeout))
		defer call.end()
	}
	select {
	case p.busy <- struct{}{}:
	case <-p.closed:
		return ErrPluginClosed
	case <-ctx.Done():
		return fmt.Errorf("waiting for an earlier request: %w", causeOf(ctx))
	}
	defer func() { <-p.busy }()
	if p.isClosed() || p.violation.Load() != nil {
		return ErrPluginClosed
	}
	// run recovers a panic anywhere in the call, the bound put on its
	// request's write included.
	err := boundedText(p.run(ctx, func(ctx context.Context) error { return p.callBounded(ctx, fn) }))
	if err == nil {
		p.noteSlow(start, timeout)
		return nil
	}
	if ctx.Err() != nil {
		p.abandonCalls()
	}
	// Marked here, where the deadlines are known, so that classify need not
	// guess: a reply that came in time but failed later (say, in the merge)
	// stays the plugin's error.
	switch whoseDeadline(ctx, err, callerFirst) {
	case ownDeadline:
		return fmt.Errorf("%w after %v: %w", ErrPluginTimeout, timeout, err)
	case callerDeadline:
		return fmt.Errorf("%w: %w", errCallerDeadline, err)
	}
	return err
}

// callAbandoner is a transport that can drop quietly the answers to calls
// whose callers gave up on them.
type callAbandoner interface{ AbandonCalls() }

// abandonCalls is called while p's one request slot is held, so the only
// call open is the one that just ran out of time.
func (p *plugin) abandonCalls() {
	if a, ok := p.conn.(callAbandoner); ok {
		a.AbandonCalls()
	}
}

// close disconnects the plugin at once; it is idempotent.
func (p *plugin) close() {
	p.closeOnce.Do(func() {
		close(p.closed)
		p.closeQueue()
		if p.conn != nil {
			p.conn.Close()
		}
	})
}

// shutdown tells the plugin why it is going away, then ends its connection
// gracefully within ctx.
func (p *plugin) shutdown(ctx context.Context, reason string, timeout time.Duration) {
	if !p.isClosed() {
		err := p.invoke(ctx, timeout, func(ctx context.Context) error {
			_, err := p.svc.Shutdown(ctx, &api.ShutdownRequest{Reason: reason})
			return err
		})
		if err != nil && !isUnimplemented(err) {
			p.logCtx(ctx).WithField("reason", reason).WithError(err).Warn("nrikit: plugin did not acknowledge Shutdown; closing its connection")
		}
	}
	p.closeOnce.Do(func() {
		close(p.closed)
		p.closeQueue()
		if p.conn == nil {
			return
		}
		if err := p.conn.Stop(ctx); err != nil {
			p.logCtx(ctx).WithError(err).Warn("nrikit: plugin process did not exit in time and was killed")
		}
	})
}
