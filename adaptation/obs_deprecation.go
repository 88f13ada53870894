// SPDX-License-Identifier: Apache-2.0

// Recording plugins' deprecated behaviour (Deprecations).

package adaptation

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
)

// Deprecation is a kind of deprecated plugin behaviour. Values and texts are
// the reference's, so a runtime's recorder can map them one to one.
type Deprecation int

const (
	// DeprecatedStateChange: the plugin takes an event only through the old
	// multiplexed StateChange call, not its dedicated RPC.
	DeprecatedStateChange Deprecation = iota + 1
)

// String is the deprecation's text, the reference's.
func (d Deprecation) String() string {
	switch d {
	case DeprecatedStateChange:
		return "deprecated StateChange"
	}
	return "unknown deprecation"
}

// MarshalText writes the deprecation's text, for JSON reports.
func (d Deprecation) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// DeprecationRecorder receives deprecation warnings; it has the reference's
// shape: a recorder written against this package's Deprecation compiles
// unchanged; one typed against the reference's own Deprecation needs a
// one-line adapter, since Go interfaces need identical types.
type DeprecationRecorder interface {
	PluginWarning(ctx context.Context, d Deprecation, plugin, details string)
}

// PluginDeprecation is one connected plugin's deprecated behaviour, for
// operators.
type PluginDeprecation struct {
	Plugin      string      `json:"plugin"`
	Deprecation Deprecation `json:"deprecation"`
	Events      []api.Event `json:"events"`
	Since       time.Time   `json:"since"`
}

// MarshalJSON writes event names rather than numbers.
func (d PluginDeprecation) MarshalJSON() ([]byte, error) {
	names := make([]string, len(d.Events))
	for i, ev := range d.Events {
		names[i] = ev.Name()
	}
	return json.Marshal(pluginDeprecationJSON{d.Plugin, d.Deprecation, names, d.Since})
}

// pluginDeprecationJSON is PluginDeprecation's JSON form, written by
// MarshalJSON and read by UnmarshalJSON.
type pluginDeprecationJSON struct {
	Plugin      string      `json:"plugin"`
	Deprecation Deprecation `json:"deprecation"`
	Events      []string    `json:"events"`
	Since       time.Time   `json:"since"`
}

// deprecations keeps the deprecations of the connected plugins; each
// (plugin, event) pair is reported once.
type deprecations struct {
	mu       sync.Mutex
	byPlugin map[*plugin]*PluginDeprecation
	recorder DeprecationRecorder
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
		"deprecated": DeprecatedStateChange.String(),
	}).Warn("nrikit: plugin uses a deprecated interface: " + details)
	if d.recorder != nil {
		d.recorder.PluginWarning(context.WithValue(ctx, deprecatedEventKey{}, ev), DeprecatedStateChange, p.id, details)
	}
}

type deprecatedEventKey struct{}

// DeprecatedEvent tells which event a deprecation warning is about: the
// context nrikit hands a DeprecationRecorder carries it, so that a recorder
// need not parse the details. Its Name() is the form the logs use
// ("RunPodSandbox").
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
		d.byPlugin = map[*plugin]*PluginDeprecation{}
	}
	rec := d.byPlugin[p]
	if rec == nil {
		rec = &PluginDeprecation{Plugin: p.id, Deprecation: DeprecatedStateChange, Since: time.Now()}
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

// list returns the records of the connected plugins, by plugin.
func (d *deprecations) list() []PluginDeprecation {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pruneClosed()
	out := make([]PluginDeprecation, 0, len(d.byPlugin))
	for _, rec := range d.byPlugin {
		c := *rec
		c.Events = slices.Clone(rec.Events)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b PluginDeprecation) int { return strings.Compare(a.Plugin, b.Plugin) })
	return out
}
