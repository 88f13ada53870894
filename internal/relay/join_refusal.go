// SPDX-License-Identifier: Apache-2.0

// Answering a refused connection's RegisterPlugin with why, before closing it.

package relay

import (
	"context"
	"net"

	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/nri"
)

// refuse answers the RegisterPlugin of a connection that admission refused
// with why, then closes it: a plugin author who starts too many plugins from
// one process hears which bound it hit, not just "connection closed". The
// peer has refusalGrace to call RegisterPlugin, and as long again to read
// the reply and hang up.
func (r *Relay) refuse(ctx context.Context, trunk net.Conn, peer accept.Peer, why error) {
	if !r.refusals.TryAcquire() { // beyond admission.MaxRefusalsAnswered: closed without a word
		_ = trunk.Close()
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.refusals.Release()
		rs := newRuntimeService(r, &peer)
		rs.refusal = why
		rs.rev.stopping = ctx.Done()
		conn, err := dialSocketConn(trunk, nil, rs, &r.cfg, nri.Unregistered)
		if err != nil {
			_ = trunk.Close()
			return
		}
		defer conn.Close()
		_, _ = rs.await(ctx, refusalGrace, conn.Lost(), conn.Unanswered)
	}()
}
