// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nrikit/nrikit/adaptation"
)

// deprecationLog keeps every deprecation nrikit reports during the run.
// Adaptation.Deprecations lists only the plugins still connected; the report
// also names a legacy plugin that was dropped along the way.
type deprecationLog struct {
	mu       sync.Mutex
	byPlugin map[string]*adaptation.PluginDeprecation
}

func newDeprecationLog() *deprecationLog {
	return &deprecationLog{byPlugin: map[string]*adaptation.PluginDeprecation{}}
}

func (l *deprecationLog) PluginWarning(ctx context.Context, d adaptation.Deprecation, plugin, _ string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec := l.byPlugin[plugin]
	if rec == nil {
		rec = &adaptation.PluginDeprecation{Plugin: plugin, Deprecation: d, Since: time.Now()}
		l.byPlugin[plugin] = rec
	}
	if ev, ok := adaptation.DeprecatedEvent(ctx); ok && !slices.Contains(rec.Events, ev) {
		rec.Events = append(rec.Events, ev)
		slices.Sort(rec.Events)
	}
}

// list returns the deprecations by plugin, as Adaptation.Deprecations does.
func (l *deprecationLog) list() []adaptation.PluginDeprecation {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]adaptation.PluginDeprecation, 0, len(l.byPlugin))
	for _, rec := range l.byPlugin {
		c := *rec
		c.Events = slices.Clone(rec.Events)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b adaptation.PluginDeprecation) int { return strings.Compare(a.Plugin, b.Plugin) })
	return out
}
