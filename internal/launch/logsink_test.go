// SPDX-License-Identifier: Apache-2.0

// Tests of the Sink that logs a plugin's lines.

package launch

import (
	"fmt"
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

// TestLogSinkRate: within one window a LogSink logs LogBurst lines, each
// with its stream, and at the end one warning says how many it dropped.
func TestLogSinkRate(t *testing.T) {
	logger, hook := test.NewNullLogger()
	sink := NewLogSink(logrus.NewEntry(logger).WithField("plugin", "10-x"))
	const dropped = 7
	for i := range LogBurst + dropped {
		sink.Line(Line{Stream: []string{Stdout, Stderr}[i%2], Text: fmt.Sprintf("line %d", i)})
	}
	entries := hook.AllEntries()
	if len(entries) != LogBurst {
		t.Fatalf("logged %d lines in one window, want %d", len(entries), LogBurst)
	}
	for i, e := range entries {
		if want := fmt.Sprintf("line %d", i); e.Message != want || e.Level != logrus.InfoLevel ||
			e.Data["stream"] != []string{Stdout, Stderr}[i%2] || e.Data["plugin"] != "10-x" {
			t.Fatalf("line %d logged as %s %q %v, want info %q with its stream and plugin", i, e.Level, e.Message, e.Data, want)
		}
	}
	hook.Reset()
	sink.End()
	entries = hook.AllEntries()
	if len(entries) != 1 || entries[0].Level != logrus.WarnLevel || entries[0].Data["suppressed"] != dropped ||
		entries[0].Message != "nrikit: plugin output lines dropped from the log (over the rate)" {
		t.Fatalf("at the end logged %v, want one warning with suppressed=%d", entries, dropped)
	}
}

// TestLogSinkEndQuiet: a LogSink that dropped nothing says nothing at the end.
func TestLogSinkEndQuiet(t *testing.T) {
	logger, hook := test.NewNullLogger()
	sink := NewLogSink(logrus.NewEntry(logger))
	sink.Line(Line{Stream: Stdout, Text: "one"})
	sink.End()
	if n := len(hook.AllEntries()); n != 1 {
		t.Fatalf("logged %d lines, want only the plugin's one", n)
	}
}
