// SPDX-License-Identifier: Apache-2.0

package mux

import "github.com/nrikit/nrikit/internal/panics"

// readLoop is the trunk reader goroutine. It waits for Unblock, then hands
// frames to their connections until the trunk ends.
func (m *Mux) readLoop() {
	defer close(m.readerDone)
	select {
	case <-m.unblock:
	case <-m.done:
		return
	}
	m.shutdown(m.readFramesSafely(newFrameReader(m.io)))
}

// readFramesSafely is readFrames, with a panic in it (in code the peer's
// bytes steer) as the reason the trunk ends, instead of the process's end.
func (m *Mux) readFramesSafely(fr *frameReader) (err error) {
	defer panics.Recover(&err)
	return m.readFrames(fr)
}

// readFrames dispatches frames until the trunk ends, and returns why.
func (m *Mux) readFrames(fr *frameReader) error {
	for {
		h, err := fr.next()
		if err != nil {
			return trunkReadError(err)
		}
		panics.Inject("mux.read", "")
		if h.size > MaxFramePayload {
			return &FrameSizeError{ID: h.id, Size: h.size, Limit: MaxFramePayload}
		}
		c := m.lookup(h.id)
		if c == nil {
			// Unknown, reserved or not yet opened: drop, as the reference does.
			if err := fr.skip(h.size); err != nil {
				return trunkReadError(err)
			}
			continue
		}
		if c.recv != nil {
			if err := fr.feed(h.size, c.recv); err != nil {
				return trunkReadError(err)
			}
			continue
		}
		p, err := fr.payload(h.size)
		if err != nil {
			return trunkReadError(err)
		}
		// An empty frame carries nothing; queueing it would fake an EOF.
		if len(*p) == 0 {
			putPayload(p)
			continue
		}
		if !c.deliver(p) {
			return ErrClosed
		}
	}
}
