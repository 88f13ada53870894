// SPDX-License-Identifier: Apache-2.0

package guard

// What the guard learns from ttrpc's own messages: the calls a client has
// open, and the requests a server has not answered yet.

// Write writes ttrpc's messages, noting the calls they open (client) or
// answer (server).
func (c *Conn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.scan(b)
	n, err := c.Conn.Write(b)
	if err == nil {
		c.answered(c.wdone)
	}
	c.wdone = c.wdone[:0]
	return n, err
}

// scan follows the message boundaries of what ttrpc writes. A client's call
// is recorded before its bytes go out, so its answer always finds it.
func (c *Conn) scan(b []byte) {
	for len(b) > 0 {
		if c.wfill < HeaderSize {
			k := copy(c.whdr[c.wfill:], b)
			c.wfill += k
			b = b[k:]
			if c.wfill < HeaderSize {
				return
			}
			c.wcur = ParseHeader(c.whdr[:])
			c.wleft = c.wcur.Length
			if c.cfg.Role == Client && c.wcur.Type == TypeRequest {
				c.opened(c.wcur.StreamID)
			}
		}
		k := uint32(min(uint64(len(b)), uint64(c.wleft)))
		c.wleft -= k
		b = b[k:]
		if c.wleft == 0 {
			if c.cfg.Role == Server && c.wcur.Type == TypeResponse {
				c.wdone = append(c.wdone, c.wcur.StreamID)
			}
			c.wfill = 0
		}
	}
}

func (c *Conn) opened(id uint32) { c.replies.Opened(id) }

// AbandonOpen tells a client's guard that ttrpc has given up on every call
// now open (its caller's deadline passed): an answer to one of them, come
// late, is dropped quietly instead of reaching ttrpc, which would log it
// as a message on an inactive stream.
func (c *Conn) AbandonOpen() { c.replies.AbandonOpen() }

// admit counts a request that ttrpc will answer.
func (c *Conn) admit(id uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[id]++
	c.npending++
}

func (c *Conn) answered(ids []uint32) {
	if len(ids) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.pending[id] > 0 {
			c.pending[id]--
			c.npending--
			if c.pending[id] == 0 {
				delete(c.pending, id)
			}
		}
	}
	c.changed.Broadcast()
}

// Unanswered is the number of requests a server has let through and not
// yet answered in full, and a channel closed when that may have changed. It
// is 0 once the connection is closed.
func (c *Conn) Unanswered() (int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, nil
	}
	return c.npending, c.changed.Wait()
}
