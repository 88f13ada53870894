// SPDX-License-Identifier: Apache-2.0

// Capturing a launched plugin's stdout and stderr (PluginOutput).

package adaptation

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/ratelog"
	"github.com/nrikit/nrikit/internal/syncx"
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
// per OutputLogWindow. The pipes are always read to their end, so a plugin
// never blocks on its output, whatever it writes.
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

// startProcess starts a pre-installed plugin with its output handled as the
// runtime chose.
func (a *Adaptation) startProcess(c launch.Candidate) (*launch.Process, error) {
	switch a.opts.pluginOutput {
	case PluginOutputDiscard:
		return launch.Start(c)
	case PluginOutputKeep:
		return launch.StartCapturing(c, launch.NewOutput(nil))
	default:
		return launch.StartCapturing(c, launch.NewOutput(newOutputLog(a.log.WithField("plugin", c.ID()))))
	}
}

// outputLog logs a plugin's lines, rate-limited.
type outputLog struct {
	log   *logrus.Entry
	limit *ratelog.Limiter
}

func newOutputLog(log *logrus.Entry) *outputLog {
	return &outputLog{log: log, limit: ratelog.New(OutputLogBurst, OutputLogWindow)}
}

func (o *outputLog) Line(l launch.Line) {
	if log, ok := o.limit.AllowEntry(o.log); ok {
		log.WithField("stream", l.Stream).Info(l.Text)
	}
}

// End says how many lines the rate dropped since the last one logged.
func (o *outputLog) End() {
	if n := o.limit.Flush(); n > 0 {
		o.log.WithField("suppressed", n).Warn("nrikit: plugin output lines dropped from the log (over the rate)")
	}
}

// outputOf returns the last lines proc wrote. Once it has exited, it waits
// up to wait for them to be read to their end.
func outputOf(proc *launch.Process, wait time.Duration) []OutputLine {
	if proc == nil || proc.Output() == nil {
		return nil
	}
	if syncx.Closed(proc.Exited()) {
		syncx.Within(proc.Drained(), wait)
	}
	lines := proc.Output().Lines()
	if len(lines) == 0 {
		return nil
	}
	out := make([]OutputLine, len(lines))
	for i, l := range lines {
		out[i] = OutputLine{Stream: l.Stream, Text: l.Text}
	}
	return out
}
