// SPDX-License-Identifier: Apache-2.0

// Package wake is a broadcast wake-up for goroutines that wait, with a
// deadline or a cancel of their own, for state guarded by a mutex to change.
package wake

// Signal wakes every goroutine waiting on it. The zero value is ready. It is
// not safe for concurrent use: its users call it with their mutex held.
type Signal struct {
	ch chan struct{}
}

// Wait returns a channel closed at the next Broadcast. The channel is made
// only when someone waits, so a Broadcast with no waiters costs nothing.
func (s *Signal) Wait() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Broadcast wakes the goroutines waiting on the channel Wait returned.
func (s *Signal) Broadcast() {
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
