// SPDX-License-Identifier: Apache-2.0

// Tests of starting a plugin by output mode, and of its last lines.

package launch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

// startPrinting starts this test binary as plugin 10-print with its output
// handled as mode says, logged to the returned hook.
func startPrinting(t *testing.T, mode OutputMode) (*Process, *test.Hook) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	symlink(t, exe, filepath.Join(dir, "10-"+modePrint))
	logger, hook := test.NewNullLogger()
	p, _ := startOnlyWith(t, dir, func(c Candidate) (*Process, error) {
		return StartWithOutput(c, mode, logrus.NewEntry(logger))
	})
	return p, hook
}

// printedCount is how many lines modePrint writes: printedLines, the long
// line and "last".
var printedCount = len(printedLines) + 2

// TestStartWithOutput: OutputLog keeps and logs the plugin's lines,
// OutputKeep only keeps them, OutputDiscard captures nothing.
func TestStartWithOutput(t *testing.T) {
	for _, tt := range []struct {
		mode         OutputMode
		kept, logged int
		captured     bool
	}{
		{OutputLog, printedCount, printedCount, true},
		{OutputKeep, printedCount, 0, true},
		{OutputDiscard, 0, 0, false},
	} {
		p, hook := startPrinting(t, tt.mode)
		waitExited(t, p)
		select {
		case <-p.Drained(): // OutputGrace at most after the exit
		case <-time.After(waitLimit):
			t.Fatalf("mode %d: output not drained %v after the exit", tt.mode, waitLimit)
		}
		if captured := p.Output() != nil; captured != tt.captured {
			t.Errorf("mode %d: output captured %v, want %v", tt.mode, captured, tt.captured)
		}
		if n := len(p.LastLines(waitLimit)); n != tt.kept {
			t.Errorf("mode %d: %d lines kept, want %d", tt.mode, n, tt.kept)
		}
		if n := len(hook.AllEntries()); n != tt.logged {
			t.Errorf("mode %d: %d lines logged, want %d", tt.mode, n, tt.logged)
		}
	}
}

// gatedSink holds the reading of each stream at its first line until open
// is closed.
type gatedSink struct{ open chan struct{} }

func (s gatedSink) Line(Line) { <-s.open }
func (s gatedSink) End()      {}

// TestLastLinesWaitsForTheDrain: once the plugin has exited, LastLines
// waits for its output to be read to its end; LastLines(0) does not. The
// sink holds the reading back until the test lets it go, well within
// OutputGrace of the exit (after which the output would be abandoned).
func TestLastLinesWaitsForTheDrain(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	symlink(t, exe, filepath.Join(dir, "10-"+modePrint))
	sink := gatedSink{open: make(chan struct{})}
	p, _ := startOnly(t, dir, NewOutput(sink))
	waitExited(t, p)
	if n := len(p.LastLines(0)); n > 2 {
		t.Fatalf("LastLines(0) with the reading held back: %d lines, want at most each stream's first", n)
	}
	go close(sink.open)
	got := texts(p.LastLines(waitLimit))
	if len(got) != printedCount || !slices.Contains(got, Stderr+": last") {
		t.Fatalf("LastLines after the exit: %q, want all %d lines, the last one too", got, printedCount)
	}
}

// TestLastLinesNotLaunched: a nil Process (a plugin not launched) and one
// whose output goes to the null device have no lines.
func TestLastLinesNotLaunched(t *testing.T) {
	var p *Process
	if lines := p.LastLines(waitLimit); lines != nil {
		t.Errorf("nil Process: %q", lines)
	}
	discarded, _ := startPrinting(t, OutputDiscard)
	if lines := discarded.LastLines(0); lines != nil {
		t.Errorf("discarded output: %q", lines)
	}
}
