// SPDX-License-Identifier: Apache-2.0

// The limits of the log lines about connections refused or failed before joining.

package admission

import (
	"time"

	"github.com/nrikit/nrikit/internal/ratelog"
)

// LogLimits bound, across all peers, the lines about refused connections
// (Refused), about connections that failed before naming a valid plugin
// (Unregistered), and about those refused under a valid name (Named: an ID
// the runtime's own plugin holds, a sync back-off): each connection is new,
// so no per-connection limit holds a flood of them back, and a flood of one
// kind does not hide the other.
type LogLimits struct {
	Refused, Unregistered, Named *ratelog.Limiter
}

// Each kind of line is logged at most logBurst times per logWindow.
const (
	logBurst  = 10
	logWindow = 10 * time.Second
)

// NewLogLimits returns limits of logBurst lines per logWindow for each kind.
func NewLogLimits() *LogLimits {
	return &LogLimits{
		Refused:      ratelog.New(logBurst, logWindow),
		Unregistered: ratelog.New(logBurst, logWindow),
		Named:        ratelog.New(logBurst, logWindow),
	}
}
