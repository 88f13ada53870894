package main

import (
	"context"
	"fmt"
	"io"

	"github.com/nrikit/nrikit/adaptation"
)

// Progress while nritest waits for plugins: a line on stderr (stdout holds
// only the report) as each plugin joins, is refused or is skipped, so that a
// wait is never silent.

// announce prints the changes from now on to w; nil stops it.
func (c *pluginChanges) announce(w io.Writer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progress, c.refusedExternal = w, nil
}

// progressLine prints ch if announcing, and keeps the external plugins
// refused while announcing. Called holding c.mu.
func (c *pluginChanges) progressLine(ch adaptation.PluginChange) {
	if c.progress == nil {
		return
	}
	var line string
	switch ch.Change {
	case adaptation.PluginJoined:
		line = fmt.Sprintf("%s joined (%s)", ch.Plugin, ch.Kind)
	case adaptation.PluginFailed:
		line = fmt.Sprintf("%s (%s) refused during %s: %s", ch.Plugin, ch.Kind, ch.Phase, ch.Reason)
		if ch.Kind == adaptation.KindExternal {
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

// refusals lists the external plugins refused since announce began, and a
// channel closed at the next change.
func (c *pluginChanges) refusals() (refused []string, next <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.refusedExternal...), c.changed
}

// startPlugins starts the runtime, which starts the pre-installed plugins
// and waits for each to register. Those of --plugin-path are the user's:
// the wait and each outcome get a line.
func startPlugins(ctx context.Context, a *adaptation.Adaptation, cfg config, changes *pluginChanges, stderr io.Writer) error {
	if !cfg.samples && cfg.pluginPath != "" {
		fmt.Fprintf(stderr, "nritest: starting the plugins in %s (each has %s to register, see --registration-timeout)\n", cfg.pluginPath, cfg.regTimeout)
		changes.announce(stderr)
	}
	err := a.Start(ctx)
	if err != nil {
		changes.announce(nil)
	}
	return err
}
