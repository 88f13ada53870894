package mux

// readLoop is the trunk reader goroutine. It waits for Unblock, then hands
// frames to their connections until the trunk ends.
func (m *Mux) readLoop() {
	defer close(m.readerDone)
	select {
	case <-m.unblock:
	case <-m.done:
		return
	}
	m.shutdown(m.readFrames(newFrameReader(m.trunk)))
}

// readFrames dispatches frames until the trunk ends, and returns why.
func (m *Mux) readFrames(fr *frameReader) error {
	for {
		h, err := fr.next()
		if err != nil {
			return trunkReadError(err)
		}
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
