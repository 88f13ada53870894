// SPDX-License-Identifier: Apache-2.0

package mux

// DefaultQueueLimit is the default number of unread frames queued per logical
// connection, the same as the reference implementation.
const DefaultQueueLimit = 256

// Option configures a Mux.
type Option func(*config)

type config struct {
	readerBlocked bool
	queueLimit    int
}

func newConfig(opts []Option) config {
	cfg := config{queueLimit: DefaultQueueLimit}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// WithReaderBlocked defers reading the trunk until Unblock is called, so the
// caller can open its connections first and lose no early frame.
func WithReaderBlocked() Option {
	return func(c *config) { c.readerBlocked = true }
}

// WithQueueLimit bounds the number of unread frames queued per logical
// connection. Values below 1 select DefaultQueueLimit.
func WithQueueLimit(frames int) Option {
	return func(c *config) {
		c.queueLimit = frames
		if frames < 1 {
			c.queueLimit = DefaultQueueLimit
		}
	}
}
