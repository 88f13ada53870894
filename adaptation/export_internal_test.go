// SPDX-License-Identifier: Apache-2.0

package adaptation

// What the external tests may watch of the internals, to wait on a signal
// rather than poll.

// JoiningChanged is closed at the next change of the handshakes Status
// lists as joining.
func JoiningChanged(a *Adaptation) <-chan struct{} { return a.joining.Changed() }

// SynchronizationHoldsEvents tells whether a plugin's synchronization holds
// the event barrier (or waits for it), and returns a channel closed at the
// barrier's next change.
func SynchronizationHoldsEvents(a *Adaptation) (bool, <-chan struct{}) {
	return a.relay.SynchronizationHoldsEvents()
}
