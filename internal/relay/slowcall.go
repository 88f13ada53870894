// SPDX-License-Identifier: Apache-2.0

// Logging plugin answers that came late but in time.

package relay

import (
	"time"

	"github.com/nrikit/nrikit/internal/ratelog"
)

// A plugin that always answers, but late, is never dropped, yet every event
// it takes costs the node that long. An answer after more than half its
// timeout is logged, at most once per slowLogWindow per plugin, so that an
// operator sees which plugin it is before it starts timing out.
const slowLogWindow = time.Minute

func newSlowLog() *ratelog.Limiter { return ratelog.New(1, slowLogWindow) }

// noteSlow logs a call of p that succeeded after more than half of timeout.
func (p *plugin) noteSlow(start time.Time, timeout time.Duration) {
	took := time.Since(start)
	if 2*took <= timeout {
		return
	}
	log, ok := p.slowLog.AllowEntry(p.log)
	if !ok {
		return
	}
	log = log.WithField("took", took.Round(time.Millisecond)).WithField("timeout", timeout)
	if event := p.eventInFlight(); event != "" {
		log = log.WithField("event", event)
	}
	log.Warn("nrikit: plugin answered after more than half its timeout")
}
