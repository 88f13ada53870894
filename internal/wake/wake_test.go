// SPDX-License-Identifier: Apache-2.0

package wake

import "testing"

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestBroadcastWakesWaitersOnce(t *testing.T) {
	var s Signal
	s.Broadcast() // no waiters: nothing to do
	first, again := s.Wait(), s.Wait()
	if first != again {
		t.Fatal("waiters before one broadcast got different channels")
	}
	if closed(first) {
		t.Fatal("channel closed before any broadcast")
	}
	s.Broadcast()
	if !closed(first) {
		t.Fatal("broadcast did not wake the waiter")
	}
	if next := s.Wait(); closed(next) {
		t.Fatal("a waiter after the broadcast is woken by it")
	}
}
