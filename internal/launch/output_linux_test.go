// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nrikit/nrikit/internal/panics"
)

// startCapturing starts this test binary as plugin 10-<mode> with its
// output read by a new Output whose sink is the returned recorder.
func startCapturing(t *testing.T, mode string) (*Process, *lineRecorder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	symlink(t, exe, filepath.Join(dir, "10-"+mode))
	rec := &lineRecorder{}
	p, _ := startOnly(t, dir, NewOutput(rec))
	return p, rec
}

type lineRecorder struct {
	mu    sync.Mutex
	lines []Line
	count int
}

func (r *lineRecorder) End() {}

func (r *lineRecorder) Line(l Line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	if len(r.lines) < 100 || l.Stream == Stdout {
		r.lines = append(r.lines, l)
	}
}

func waitDrained(t *testing.T, p *Process) {
	t.Helper()
	waitExited(t, p)
	select {
	case <-p.Drained():
	case <-p.Output().Done(): // Drained follows at once
		<-p.Drained()
	}
}

func TestOutputKeepsBothStreamsLineByLine(t *testing.T) {
	p, rec := startCapturing(t, modePrint)
	waitDrained(t, p)

	long := strings.Repeat("x", MaxLineBytes) + truncatedMark
	var want []string
	for i, l := range printedLines {
		want = append(want, []string{Stdout, Stderr}[i%2]+": "+l)
	}
	want = append(want, Stderr+": "+long, Stderr+": last")
	got := texts(p.Output().Lines())
	// The two streams are read concurrently: compare each stream's order.
	for _, stream := range []string{Stdout, Stderr} {
		if g, w := only(got, stream), only(want, stream); !slices.Equal(g, w) {
			t.Errorf("%s kept:\n%q\nwant\n%q", stream, g, w)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.count != len(want) {
		t.Errorf("onLine called %d times, want %d", rec.count, len(want))
	}
}

// A plugin that writes 16 MiB of short lines and 16 MiB on a line with no
// newline finishes (its pipes are drained), and what is kept stays within the
// bounds.
func TestOutputFloodIsDrainedAndBounded(t *testing.T) {
	p, rec := startCapturing(t, modeFlood)
	if got := readLine(t, bufio.NewReader(p.Conn()), p.Conn()); got != "done" {
		t.Fatalf("flood plugin said %q, want done", got)
	}
	lines := p.Output().Lines()
	if len(lines) > KeepLines {
		t.Errorf("kept %d lines, want at most %d", len(lines), KeepLines)
	}
	size := 0
	for _, l := range lines {
		size += len(l.Text)
		if len(l.Text) > MaxLineBytes+len(truncatedMark) {
			t.Errorf("kept a line of %d bytes, want at most %d", len(l.Text), MaxLineBytes+len(truncatedMark))
		}
	}
	if size > KeepBytes {
		t.Errorf("kept %d bytes, want at most %d", size, KeepBytes)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-p.Drained():
	default:
		t.Fatal("Stop returned before the output was read to its end")
	}
	all := texts(p.Output().Lines())
	if !slices.Contains(all, Stderr+": flood over") {
		t.Errorf("last stderr line not kept; kept ends with %q", all[len(all)-1])
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if got, want := only(texts(rec.lines), Stdout), []string{Stdout + ": " + strings.Repeat("y", MaxLineBytes) + truncatedMark}; !slices.Equal(got, want) {
		t.Errorf("the line without newline was read as %d lines, want one cut at MaxLineBytes", len(got))
	}
	if min := floodBytes / 13; rec.count < min {
		t.Errorf("onLine called %d times, want every line (at least %d)", rec.count, min)
	}
}

func texts(lines []Line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Stream+": "+l.Text)
	}
	return out
}

func only(lines []string, stream string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, stream+": ") {
			out = append(out, l)
		}
	}
	return out
}

// A panic while reading a plugin's stderr (a sink that panics on a line)
// stops handing on that stream's lines, not the runtime: the panic is the
// stream's last line kept, the rest of its 16 MiB is still drained (the
// flooding plugin finishes), and stdout goes on being read.
func TestOutputPanicStopsOnlyThatStreamsLines(t *testing.T) {
	remove := panics.SetHook(func(place, subject string) {
		if place == "launch.output" && subject == Stderr {
			panic("sink broke")
		}
	})
	defer remove()
	p, rec := startCapturing(t, modeFlood)
	if got := readLine(t, bufio.NewReader(p.Conn()), p.Conn()); got != "done" {
		t.Fatalf("flood plugin said %q, want done: its stderr was not drained after the panic", got)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	<-p.Drained()
	stderr := only(texts(p.Output().Lines()), Stderr)
	want := []string{Stderr + ": nrikit: output no longer read: nrikit: panic: sink broke"}
	if !slices.Equal(stderr, want) {
		t.Errorf("stderr kept %q, want %q", stderr, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if got, want := only(texts(rec.lines), Stdout), []string{Stdout + ": " + strings.Repeat("y", MaxLineBytes) + truncatedMark}; !slices.Equal(got, want) {
		t.Errorf("stdout handed on as %d lines, want its one line", len(got))
	}
}
