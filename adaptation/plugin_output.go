// SPDX-License-Identifier: Apache-2.0

// A launched plugin's stdout and stderr: the settings (PluginOutput), wired to internal/launch's capture.

package adaptation

import (
	"time"

	"github.com/nrikit/nrikit/internal/launch"
)

// PluginOutput says what nrikit does with what pre-installed plugins write
// to their stdout and stderr (WithPluginOutput).
type PluginOutput int

const (
	// PluginOutputLog, the default, logs each line at info level with the
	// fields plugin and stream, at most OutputLogBurst lines per plugin in
	// OutputLogWindow (the next line logged says how many were dropped in
	// the field suppressed), and keeps the last lines for
	// PluginChange.Output. The way containerd forwards its shims' output
	// to its log: a plugin's panic or its own log lines are where the
	// operator looks.
	PluginOutputLog PluginOutput = iota
	// PluginOutputKeep only keeps the last lines for PluginChange.Output.
	PluginOutputKeep
	// PluginOutputDiscard gives plugins the null device as stdout and
	// stderr, as the reference runtime does.
	PluginOutputDiscard
)

// Bounds of what a plugin's output costs: per plugin, at most
// OutputKeepLines lines and OutputKeepBytes are kept, a line is cut at
// OutputMaxLineBytes, and PluginOutputLog logs at most OutputLogBurst lines
// per OutputLogWindow (launch.LogBurst and launch.LogWindow). The pipes are
// always read to their end, so a plugin never blocks on its output,
// whatever it writes.
const (
	OutputKeepLines    = launch.KeepLines
	OutputKeepBytes    = launch.KeepBytes
	OutputMaxLineBytes = launch.MaxLineBytes
	OutputLogBurst     = 200
	OutputLogWindow    = 10 * time.Second
)

// OutputLine is one line a pre-installed plugin wrote.
type OutputLine struct {
	Stream string `json:"stream"` // "stdout" or "stderr"
	Text   string `json:"text"`
}

// WithPluginOutput sets what happens to pre-installed plugins' stdout and
// stderr; the default is PluginOutputLog.
func WithPluginOutput(o PluginOutput) Option {
	return func(opts *options) error { opts.pluginOutput = o; return nil }
}
