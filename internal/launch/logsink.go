// SPDX-License-Identifier: Apache-2.0

// A Sink that logs a plugin's lines, rate-limited.

package launch

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/ratelog"
)

// A LogSink logs at most LogBurst lines of one plugin per LogWindow.
const (
	LogBurst  = 200
	LogWindow = 10 * time.Second
)

// LogSink logs a plugin's lines at info level with the field stream, at
// most LogBurst per LogWindow: the next line logged says how many were
// dropped in the field suppressed, and so does a last warning at the end.
type LogSink struct {
	log   *logrus.Entry
	limit *ratelog.Limiter
}

// NewLogSink returns a LogSink that logs with log.
func NewLogSink(log *logrus.Entry) *LogSink {
	return &LogSink{log: log, limit: ratelog.New(LogBurst, LogWindow)}
}

// Line logs l unless the rate drops it.
func (o *LogSink) Line(l Line) {
	if log, ok := o.limit.AllowEntry(o.log); ok {
		log.WithField("stream", l.Stream).Info(l.Text)
	}
}

// End says how many lines the rate dropped since the last one logged.
func (o *LogSink) End() {
	if n := o.limit.Flush(); n > 0 {
		o.log.WithField("suppressed", n).Warn("nrikit: plugin output lines dropped from the log (over the rate)")
	}
}
