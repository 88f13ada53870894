// SPDX-License-Identifier: Apache-2.0

// Recording plugins' deprecated behaviour: each (plugin, event) that falls back to StateChange, once.

package relay

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
)

// DeprecatedStateChange is the deprecation's text, the reference's: the
// plugin takes an event only through the old multiplexed StateChange call,
// not its dedicated RPC.
const DeprecatedStateChange = "deprecated StateChange"

// Deprecation is one connected plugin's use of StateChange, for operators.
type Deprecation struct {
	Plugin string
	Events []api.Event // in event order
	Since  time.Time
}

// deprecations keeps the deprecations of the connected plugins; each
// (plugin, event) pair is reported once.
type deprecations struct {
	mu       sync.Mutex
	byPlugin map[*plugin]*Deprecation
	recorder func(ctx context.Context, plugin, details string)
	log      *logrus.Entry
}

func (d *deprecations) record(ctx context.Context, p *plugin, ev api.Event) {
	if !d.add(p, ev) {
		return
	}
	details := "does not implement a dedicated " + ev.Name() + " RPC call"
	d.log.WithFields(logrus.Fields{
		"plugin":     p.id,
		"event":      ev.Name(),
		"deprecated": DeprecatedStateChange,
	}).Warn("nrikit: plugin uses a deprecated interface: " + details)
	if d.recorder != nil {
		d.recorder(context.WithValue(ctx, deprecatedEventKey{}, ev), p.id, details)
	}
}

type deprecatedEventKey struct{}

// DeprecatedEvent tells which event a deprecation warning is about: the
// context the relay hands its recorder carries it.
func DeprecatedEvent(ctx context.Context) (api.Event, bool) {
	ev, ok := ctx.Value(deprecatedEventKey{}).(api.Event)
	return ev, ok
}

// add reports whether (p, ev) is new. A plugin whose failed call returns
// after it was dropped is reported but not kept: it is no longer connected.
func (d *deprecations) add(p *plugin, ev api.Event) bool {
	if !p.compat.markReported(ev) {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pruneClosed()
	if p.isClosed() {
		return true
	}
	if d.byPlugin == nil {
		d.byPlugin = map[*plugin]*Deprecation{}
	}
	rec := d.byPlugin[p]
	if rec == nil {
		rec = &Deprecation{Plugin: p.id, Since: time.Now()}
		d.byPlugin[p] = rec
	}
	rec.Events = append(rec.Events, ev)
	slices.Sort(rec.Events)
	return true
}

// forget drops a disconnected plugin's records.
func (d *deprecations) forget(p *plugin) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.byPlugin, p)
}

// pruneClosed drops the records of closed plugins that were not forgotten
// afterwards: a call that failed with its plugin's departure may record after
// the forget. The caller holds d.mu.
func (d *deprecations) pruneClosed() {
	for p := range d.byPlugin {
		if p.isClosed() {
			delete(d.byPlugin, p)
		}
	}
}

// Deprecations lists the deprecated behaviour of the connected plugins, by
// plugin.
func (r *Relay) Deprecations() []Deprecation { return r.deprecations.list() }

func (d *deprecations) list() []Deprecation {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pruneClosed()
	out := make([]Deprecation, 0, len(d.byPlugin))
	for _, rec := range d.byPlugin {
		c := *rec
		c.Events = slices.Clone(rec.Events)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Deprecation) int { return strings.Compare(a.Plugin, b.Plugin) })
	return out
}
