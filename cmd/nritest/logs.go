// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"io"
	"slices"
	"sync"

	"github.com/sirupsen/logrus"
)

// runLog is where nrikit's logs go. The report is the product: without -v
// the warnings are held until it is out, then written after it, less the
// deprecation warnings that the report's own DEPRECATIONS section shows.
// With -v every log goes to stderr as it comes, for following a run live.
type runLog struct {
	entry  *logrus.Entry
	held   *heldLines // nil with -v
	stderr io.Writer
}

// newRunLog makes the run's log; without -v, the lines about the plugins in
// quiet (nritest's own, whose failures the report shows) are dropped too.
func newRunLog(stderr io.Writer, verbose bool, quiet ...string) *runLog {
	l := logrus.New()
	rl := &runLog{entry: logrus.NewEntry(l), stderr: stderr}
	if verbose {
		l.SetOutput(stderr)
		l.SetLevel(logrus.DebugLevel)
		return rl
	}
	rl.held = &heldLines{}
	l.SetOutput(rl.held)
	l.SetLevel(logrus.WarnLevel)
	l.SetFormatter(withoutDeprecations{Formatter: l.Formatter, quiet: quiet})
	return rl
}

// adoptStandardLogger sends the logs of the libraries nrikit uses (ttrpc logs
// through logrus's standard logger) the same way as nrikit's, until the
// returned function restores it.
func (l *runLog) adoptStandardLogger() (restore func()) {
	standardMu.Lock()
	defer standardMu.Unlock()
	std := logrus.StandardLogger()
	out, level := std.Out, std.GetLevel()
	std.SetOutput(l.entry.Logger.Out)
	std.SetLevel(l.entry.Logger.GetLevel())
	return func() {
		standardMu.Lock()
		defer standardMu.Unlock()
		std.SetOutput(out)
		std.SetLevel(level)
	}
}

// standardMu orders the runs (tests run several at once) that adopt the
// standard logger: logrus reads its Out field unlocked.
var standardMu sync.Mutex

// flush writes the held logs to stderr, after the report.
func (l *runLog) flush() {
	if l.held != nil {
		l.held.writeTo(l.stderr)
	}
}

// heldLines buffers log lines; plugins' goroutines may still log while the
// report is written.
type heldLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (h *heldLines) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Write(p)
}

func (h *heldLines) writeTo(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.Write(h.buf.Bytes()) //nolint:errcheck // stderr: nowhere to report to
	h.buf.Reset()
}

// withoutDeprecations drops nrikit's deprecation warnings (they carry the
// "deprecated" field), which the report lists already, and the lines about
// the quiet plugins.
type withoutDeprecations struct {
	logrus.Formatter
	quiet []string
}

func (f withoutDeprecations) Format(e *logrus.Entry) ([]byte, error) {
	if _, ok := e.Data["deprecated"]; ok {
		return nil, nil
	}
	if p, ok := e.Data["plugin"].(string); ok && slices.Contains(f.quiet, p) {
		return nil, nil
	}
	return f.Formatter.Format(e)
}
