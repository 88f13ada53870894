// SPDX-License-Identifier: Apache-2.0

// The accept loop: each external connection gets a place (join_admission.go) and its own handshake
// goroutine.

package relay

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/syncx"
)

// acceptLoop handshakes every external connection on its own goroutine, so
// that a slow or silent client cannot delay the others.
func (r *Relay) acceptLoop(ctx context.Context, l net.Listener) {
	defer r.wg.Done()
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			r.log.WithError(err).Warn("nrikit: accepting a plugin connection failed")
			if !syncx.Sleep(ctx, 50*time.Millisecond) {
				return
			}
			continue
		}
		peer := accept.PeerOf(conn)
		pid := peer.PID
		var evicted atomic.Bool
		registered, leave, err := r.admission.Enter(pid, func() {
			evicted.Store(true)
			_ = conn.Close()
		})
		if err != nil {
			r.logRefusedConnection(pid)
			r.refuse(ctx, conn, peer, err)
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			err := r.connectSocket(ctx, conn, nil, nil, &external{peer: peer, registered: registered})
			leave()
			if err != nil && evicted.Load() {
				err = &nri.PluginError{Plugin: nri.Unregistered, Op: nri.PhaseRegister, Err: errEvicted}
			}
			r.joinFailed(ctx, nri.External, pid, err)
		}()
	}
}

// logRefusedConnection says, a few times per window, that a connection was
// refused: its process has its share of places, or every place is held by
// a plugin joining.
func (r *Relay) logRefusedConnection(pid int) {
	log, ok := r.joinLogs.Refused.AllowEntry(r.log)
	if !ok {
		return
	}
	log = log.WithField("limit", r.cfg.Registering.Total).WithField("limit_per_process", r.cfg.Registering.PerPID)
	if pid != 0 {
		log = log.WithField("pid", pid)
	}
	log.Warn("nrikit: refused a plugin connection: too many connections registering (from its process, or plugins joining)")
}

// external is what connectSocket knows of an external connection: who is
// at its other end, and what to call once it registered.
type external struct {
	peer       accept.Peer
	registered func()
}

// errEvicted ends a connection that had not registered when all places were
// taken and a newer one came.
var errEvicted = errors.New("nrikit: closed before registering, to make room for a newer connection: " +
	"too many connections were registering at once")
