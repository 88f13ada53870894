// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/nrikit/nrikit/adaptation"
)

// Progress while nritest waits for plugins: a line on stderr (stdout holds
// only the report) as each plugin joins, is refused or is skipped, so that a
// wait is never silent.

// announce prints the changes of the plugins of kinds from now on to w;
// nil stops it.
func (c *pluginChanges) announce(w io.Writer, kinds func(string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progress, c.announced = w, kinds
}

// progressLine prints ch if announcing, and keeps the external plugins
// refused while announcing. Called holding c.mu.
func (c *pluginChanges) progressLine(ch adaptation.PluginChange) {
	if c.progress == nil || !c.announced(ch.Kind) {
		return
	}
	var line string
	switch ch.Change {
	case adaptation.PluginJoined:
		line = fmt.Sprintf("%s joined (%s)", ch.Plugin, ch.Kind)
		c.joinsAnnounced[ch.Plugin] = true
	case adaptation.PluginFailed:
		line = fmt.Sprintf("%s (%s) failed to join during %s: %s%s", ch.Plugin, ch.Kind, ch.Phase, ch.Reason, limitHint(ch.Phase, ch.Reason))
		if ch.Kind == adaptation.KindExternal {
			line = fmt.Sprintf("%s (%s) refused during %s: %s%s", ch.Plugin, ch.Kind, ch.Phase, ch.Reason, limitHint(ch.Phase, ch.Reason))
			c.refusedExternal = append(c.refusedExternal, ch.Plugin+": "+ch.Reason)
		}
	case adaptation.PluginSkipped:
		line = fmt.Sprintf("%s skipped: %s", ch.Plugin, ch.Reason)
	default:
		line = fmt.Sprintf("%s (%s) %s: %s", ch.Plugin, ch.Kind, ch.Change, ch.Reason)
	}
	fmt.Fprintf(c.progress, "nritest: %s\n", line)
	close(c.changed)
	c.changed = make(chan struct{})
}

// refusals lists the external plugins refused while announcing, and a
// channel closed at the next change.
func (c *pluginChanges) refusals() (refused []string, next <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.refusedExternal...), c.changed
}

// joinReportWait bounds the wait for the join of a plugin that is active to
// be reported: nrikit reports it right after the plugin became active.
const joinReportWait = 2 * time.Second

// awaitJoinsAnnounced waits until the joins of the active plugins of kinds
// have been announced, so that their lines come before the report.
func (c *pluginChanges) awaitJoinsAnnounced(active []adaptation.PluginInfo, kinds func(string) bool) {
	limit := time.NewTimer(joinReportWait)
	defer limit.Stop()
	for {
		c.mu.Lock()
		all := !slices.ContainsFunc(active, func(p adaptation.PluginInfo) bool { return kinds(p.Kind) && !c.joinsAnnounced[p.Plugin] })
		next := c.changed
		c.mu.Unlock()
		if all {
			return
		}
		select {
		case <-next:
		case <-limit.C:
			return
		}
	}
}

// announcedKinds is which plugins' changes a run announces: those of
// --plugin-path, and external ones awaited with --wait; nil for none.
func announcedKinds(cfg config) func(kind string) bool {
	path, external := !cfg.samples && cfg.pluginPath != "", cfg.wait > 0
	if !path && !external {
		return nil
	}
	return func(kind string) bool {
		return path && fromPath(kind) || external && kind == adaptation.KindExternal
	}
}

// startPlugins starts the runtime, which starts the pre-installed plugins
// and waits for each to register. Those of --plugin-path and the external
// plugins awaited are the user's: the wait and each outcome get a line.
func startPlugins(ctx context.Context, a *adaptation.Adaptation, cfg config, changes *pluginChanges, stderr io.Writer) error {
	if kinds := announcedKinds(cfg); kinds != nil {
		changes.announce(stderr, kinds)
	}
	if !cfg.samples && cfg.pluginPath != "" {
		fmt.Fprintf(stderr, "nritest: starting the plugins in %s (each has %s to register, see --registration-timeout)\n", cfg.pluginPath, cfg.regTimeout)
	}
	err := a.Start(ctx)
	if err != nil {
		changes.announce(nil, nil)
	}
	return err
}
