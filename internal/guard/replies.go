// SPDX-License-Identifier: Apache-2.0

// The calls a client has open, and what becomes of each message its peer sends it.

package guard

import "sync"

// maxOpen bounds the calls a client remembers as unanswered: a peer that
// never answers cannot make the set grow without end.
const maxOpen = 1024

// Verdict is what becomes of a message a client's peer sent.
type Verdict int

const (
	// Refuse: the message breaks the protocol; it is dropped and reported.
	Refuse Verdict = iota
	// Pass: the first response to a call the client made and still waits
	// for; the call is answered from now on.
	Pass
	// Late: a response to a call whose caller gave up on it (its deadline
	// passed); it is dropped quietly, since the caller knows of the timeout.
	Late
)

// Replies is the client's side of the guard: the calls it has open, by
// stream ID, which decide what becomes of each message the peer sends. A
// Conn keeps one for ttrpc's client; a client that writes its requests and
// reads its replies itself (internal/pluginconn) keeps its own. It is safe
// for concurrent use.
type Replies struct {
	mu        sync.Mutex
	open      map[uint32]struct{} // calls sent, not yet answered
	abandoned map[uint32]struct{} // open calls whose callers gave up
}

// NewReplies returns a record of no calls.
func NewReplies() *Replies {
	return &Replies{open: map[uint32]struct{}{}, abandoned: map[uint32]struct{}{}}
}

// Opened records call id as sent. It must be recorded before its request
// goes out, so that its answer always finds it.
func (r *Replies) Opened(id uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	remember(r.open, id)
}

// Abandon records that the caller of call id gave up on it: its answer, if
// it comes, is Late. A call answered already stays answered.
func (r *Replies) Abandon(id uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.open[id]; ok {
		delete(r.open, id)
		remember(r.abandoned, id)
	}
}

// AbandonOpen abandons every call now open.
func (r *Replies) AbandonOpen() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.open {
		remember(r.abandoned, id)
	}
	clear(r.open)
}

// Admit decides what becomes of a message with header h, and marks the
// call it answers answered. For a Refuse, reason says what was wrong and
// that the message was dropped.
func (r *Replies) Admit(h Header) (v Verdict, reason string) {
	if h.Type == TypeResponse {
		switch r.settle(h.StreamID) {
		case callOpen:
			return Pass, ""
		case callAbandoned:
			return Late, ""
		}
		return Refuse, "dropped a response to a call nrikit did not make or that was answered already"
	}
	if h.Type == TypeRequest {
		return Refuse, "dropped a request: nrikit serves nothing on this connection"
	}
	return Refuse, "dropped " + describe(h) + ": nrikit makes unary calls only"
}

// remember adds id to a set of calls, forgetting the oldest beyond maxOpen,
// so that a peer that never answers cannot make the set grow without end.
func remember(calls map[uint32]struct{}, id uint32) {
	calls[id] = struct{}{}
	if len(calls) > maxOpen {
		oldest := id
		for o := range calls {
			oldest = min(oldest, o)
		}
		delete(calls, oldest)
	}
}

// callState is what a client knows of a call an answer is for.
type callState int

const (
	callUnknown   callState = iota // never made, or answered already
	callOpen                       // made, awaiting its answer
	callAbandoned                  // made, but its caller no longer waits for it
)

// settle says what became of call id, and marks it answered.
func (r *Replies) settle(id uint32) callState {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.open[id]; ok {
		delete(r.open, id)
		return callOpen
	}
	if _, ok := r.abandoned[id]; ok {
		delete(r.abandoned, id)
		return callAbandoned
	}
	return callUnknown
}
