// SPDX-License-Identifier: Apache-2.0

// The bound on refused connections answered at once.

package admission

// MaxRefusalsAnswered bounds the refused connections that are answered at
// once; beyond it a refused connection is closed without a word, so that a
// flood of connections costs no more than this many in their short wait.
const MaxRefusalsAnswered = 16

// Refusals counts the refused connections being answered: the caller tells
// a refused connection why before closing it, but only while a slot is
// free.
type Refusals struct {
	slots chan struct{}
}

// NewRefusals returns Refusals of n slots.
func NewRefusals(n int) *Refusals {
	return &Refusals{slots: make(chan struct{}, n)}
}

// TryAcquire takes a slot, false when all are taken: the connection is then
// closed without an answer. A slot taken is given back with Release.
func (r *Refusals) TryAcquire() bool {
	select {
	case r.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release gives back a slot taken by TryAcquire, once the answer is over.
func (r *Refusals) Release() { <-r.slots }
