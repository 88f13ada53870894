// SPDX-License-Identifier: Apache-2.0

// Bounding the write of a request to a plugin that stops reading its socket.

package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// errRequestCutShort marks a call whose request could not be written by the
// call's deadline: the plugin stopped reading its socket. What was written
// of the request, if anything, leaves the connection out of step, and ttrpc
// fails every later call on a connection where a write failed, so the
// plugin is dropped whatever its failure policy says.
var errRequestCutShort = errors.New("nrikit: plugin did not take the whole request in time")

// writeBounder is a transport on which the calling goroutine writes each
// request itself, into a socket: a peer that stops reading would block that
// write, and with it the runtime's call, for ever.
type writeBounder interface {
	// BoundWrites makes request writes give up at t; the zero time lifts
	// the bound.
	BoundWrites(t time.Time)
}

// callBounded runs fn, which makes one call to p, with p's request writes
// bounded by ctx's deadline; invoke gives every call one. A write cut short
// there comes back marked errRequestCutShort.
func (p *plugin) callBounded(ctx context.Context, fn func(context.Context) error) error {
	b, ok := p.conn.(writeBounder)
	if !ok {
		return fn(ctx)
	}
	d, _ := ctx.Deadline()
	b.BoundWrites(d)
	// Deferred, so that a call that panics (run, around this, recovers it)
	// leaves no bound behind either: the call is over, no write of it is left.
	defer b.BoundWrites(time.Time{})
	err := fn(ctx)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Nothing else on the connection has a deadline that could expire.
		return fmt.Errorf("%w: %w", errRequestCutShort, err)
	}
	return err
}
