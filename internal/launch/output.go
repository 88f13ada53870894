// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/nrikit/nrikit/internal/panics"
)

// Bounds of what Output keeps of a plugin's stdout and stderr. Whatever a
// plugin writes, Output holds at most KeepBytes of lines plus one read
// buffer of MaxLineBytes per stream.
const (
	// MaxLineBytes caps a line: the rest of a longer line, up to its
	// newline, is dropped, so a plugin that never writes a newline costs
	// no more than one buffer.
	MaxLineBytes = 2 << 10
	// KeepLines and KeepBytes bound the last lines kept for display.
	KeepLines = 200
	KeepBytes = 64 << 10
)

// truncatedMark ends a line that was cut at MaxLineBytes.
const truncatedMark = " [line truncated]"

// Stream names, as they appear in Line and in log fields.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// Line is one line a plugin wrote, without its newline.
type Line struct {
	Stream string // Stdout or Stderr
	Text   string
}

// Output reads what a plugin process writes to stdout and stderr, line by
// line, as fast as the plugin writes it: the pipes are always drained, so a
// plugin never blocks on its output. It keeps the last lines (KeepLines,
// KeepBytes) and hands each line to its Sink.
type Output struct {
	sink Sink

	mu    sync.Mutex
	kept  []Line
	bytes int // of the texts in kept

	readers []*os.File
	wg      sync.WaitGroup
	done    chan struct{} // closed when both streams are read to their end
}

// Sink receives a plugin's lines as they are read; its methods must not
// block for long, since the plugin's pipe waits meanwhile.
type Sink interface {
	Line(Line) // called from the stream's reading goroutine
	End()      // called once, after the last line of both streams
}

// NewOutput returns an Output that hands each line to sink, if not nil.
func NewOutput(sink Sink) *Output {
	return &Output{sink: sink, done: make(chan struct{})}
}

// pipes creates the stdout and stderr pipes; the caller gives the write
// ends to the child and closes them once it has started.
func (o *Output) pipes() (stdout, stderr *os.File, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	o.readers = []*os.File{outR, errR}
	return outW, errW, nil
}

// start begins draining both pipes.
func (o *Output) start() {
	o.wg.Add(2)
	go o.drain(o.readers[0], Stdout)
	go o.drain(o.readers[1], Stderr)
	go func() {
		o.wg.Wait()
		if o.sink != nil {
			o.sink.End()
		}
		close(o.done)
	}()
}

// discard closes the read ends when the child could not be started; the
// Output may then be used for another start.
func (o *Output) discard() {
	o.abandon()
	o.readers = nil
}

// abandon stops reading: a process the plugin started and that outlived it
// may hold the pipes open for ever. The read ends are pollable, so Close
// ends the reads in progress.
func (o *Output) abandon() {
	for _, r := range o.readers {
		r.Close()
	}
}

// Done is closed once both streams have been read to their end (all the
// plugin's processes closed them) or abandoned.
func (o *Output) Done() <-chan struct{} { return o.done }

// Lines returns the lines kept, oldest first, both streams in the order
// they were read.
func (o *Output) Lines() []Line {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Line(nil), o.kept...)
}

// drain reads one stream to its end. A panic while reading or handing on a
// line (the sink logs text the plugin chose) stops the line reading, never
// the runtime: the rest of the stream is discarded, so the plugin does not
// block on a full pipe, and the panic is kept as the stream's last line.
func (o *Output) drain(r *os.File, stream string) {
	defer o.wg.Done()
	defer r.Close()
	br := bufio.NewReaderSize(r, MaxLineBytes)
	if err := o.readLines(br, stream); err != nil {
		o.keep(Line{Stream: stream, Text: "nrikit: output no longer read: " + err.Error()})
		_, _ = io.Copy(io.Discard, br)
	}
}

// readLines hands on each line of br; err is a recovered panic.
func (o *Output) readLines(br *bufio.Reader, stream string) (err error) {
	defer panics.Recover(&err)
	for {
		text, end := nextLine(br)
		if text != "" || end == nil {
			panics.Inject("launch.output", stream)
			o.add(Line{Stream: stream, Text: text})
		}
		if end != nil {
			return nil
		}
	}
}

// nextLine returns the next line without its newline, cut at MaxLineBytes;
// err is set at the end of the stream (text then holds a last unterminated
// line, if any).
func nextLine(br *bufio.Reader) (string, error) {
	chunk, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return string(trimNewline(chunk)), eof(err)
	}
	text := string(chunk) + truncatedMark
	for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the line
		_, err = br.ReadSlice('\n')
	}
	return text, eof(err)
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// eof turns every read error into io.EOF: a closed pipe (abandon) ends the
// stream as its end would.
func eof(err error) error {
	if err != nil {
		return io.EOF
	}
	return nil
}

func (o *Output) add(l Line) {
	o.keep(l)
	if o.sink != nil {
		o.sink.Line(l)
	}
}

// keep adds l to the last lines kept, within KeepLines and KeepBytes.
func (o *Output) keep(l Line) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kept = append(o.kept, l)
	o.bytes += len(l.Text)
	for len(o.kept) > KeepLines || o.bytes > KeepBytes {
		o.bytes -= len(o.kept[0].Text)
		o.kept[0] = Line{}
		o.kept = o.kept[1:]
	}
}
