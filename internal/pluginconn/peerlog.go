// SPDX-License-Identifier: Apache-2.0

// Rate-limited reports of a peer's protocol violations.

package pluginconn

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/ratelog"
)

// A misbehaving peer gets at most violationBurst log lines per
// violationWindow; the next line allowed, or the last one when its
// connection closes, says how many were held back.
const (
	violationBurst  = 10
	violationWindow = 10 * time.Second
)

// peerLog reports the protocol violations of one plugin connection, naming
// the peer as well as it is known: by pid (and file name, for a launched
// plugin) before registration, by plugin ID after.
type peerLog struct {
	entry atomic.Pointer[logrus.Entry]
	limit *ratelog.Limiter
}

func newPeerLog(entry *logrus.Entry) *peerLog {
	l := &peerLog{limit: ratelog.New(violationBurst, violationWindow)}
	l.entry.Store(entry)
	return l
}

// name makes entry the one that names the peer from now on.
func (l *peerLog) name(entry *logrus.Entry) { l.entry.Store(entry) }

// violation logs what the guard of one of the connection's ttrpc ends
// dropped or refused, unless the peer has had its share of lines.
func (l *peerLog) violation(v guard.Violation) {
	ok, suppressed := l.limit.Allow()
	if !ok {
		return
	}
	log := l.entry.Load().WithFields(logrus.Fields{
		"conn":         muxConnName(v.Role),
		"stream":       v.Header.StreamID,
		"message_type": uint8(v.Header.Type),
		"flags":        v.Header.Flags,
		"length":       v.Header.Length,
	})
	if v.Service != "" || v.Method != "" {
		log = log.WithFields(logrus.Fields{"service": v.Service, "method": v.Method})
	}
	msg := "nrikit: protocol violation by the plugin: " + v.Reason
	if suppressed > 0 {
		log = log.WithField("suppressed", suppressed)
		msg += fmt.Sprintf(" (after %d more suppressed)", suppressed)
	}
	log.Warn(msg)
}

// flush logs how many violations went unlogged since the last line.
func (l *peerLog) flush() {
	if n := l.limit.Flush(); n > 0 {
		l.entry.Load().WithField("suppressed", n).
			Warn(fmt.Sprintf("nrikit: ... %d more protocol violations by the plugin suppressed", n))
	}
}

// muxConnName names the mux connection on which nrikit has role.
func muxConnName(r guard.Role) string {
	if r == guard.Server {
		return "2 (runtime service)"
	}
	return "1 (plugin service)"
}
