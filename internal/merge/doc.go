// SPDX-License-Identifier: Apache-2.0

// Package merge combines the replies of several NRI plugins to one request
// into the single reply a runtime acts on, tracking which plugin set what,
// by the reference runtime's merge rules.
//
// A merger is fed one reply at a time, in plugin call order. For Update and
// Stop each Apply is all-or-nothing: a reply that fails to merge leaves no
// trace, and the caller may go on (StopContainer never fails). Create stops
// at the first reply that fails to merge: a CreateContainer whose replies
// conflict fails, as in the reference, so its state is not worth the copy
// that an undo would cost on every reply.
//
// Mergers are not safe for concurrent use; plugins are called one at a time.
package merge
