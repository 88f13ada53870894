// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"bytes"
	"sync"
)

// maxLine caps one line of guest output; the rest of a longer line is cut.
const maxLine = 4 << 10

// lineWriter hands a guest's stdout and stderr on line by line, and keeps
// the first line of the call in progress to explain a crash.
type lineWriter struct {
	mu      sync.Mutex
	emit    func(string)
	partial []byte
	cut     bool   // the line in partial was cut at maxLine
	first   string // first complete line since the last reset
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if room := maxLine - len(w.partial); len(chunk) > room {
			chunk, w.cut = chunk[:room], true
		}
		w.partial = append(w.partial, chunk...)
		if i < 0 {
			break
		}
		w.flushLocked()
		b = b[i+1:]
	}
	return n, nil
}

func (w *lineWriter) flushLocked() {
	line := string(w.partial)
	if w.cut {
		line += " [cut]"
	}
	w.partial, w.cut = w.partial[:0], false
	if line == "" {
		return
	}
	if w.first == "" {
		w.first = line
	}
	if w.emit != nil {
		w.emit(line)
	}
}

// flush hands on an unfinished last line.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.flushLocked()
	}
}

// takeFirst returns the first line written since the last call, and forgets it.
func (w *lineWriter) takeFirst() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.flushLocked()
	}
	first := w.first
	w.first = ""
	return first
}
