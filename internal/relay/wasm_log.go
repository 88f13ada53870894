// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

// Bounding what a WASM guest logs: lines per second, each line's length, valid UTF-8.

package relay

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/ratelog"
)

// A WASM guest logs into the runtime's own logger, through the host's log
// function and its stdout and stderr, and can do so in a loop for its whole
// call: at most guestLogBurst lines per guestLogWindow reach the logger,
// each at most guestLogMaxLine bytes of valid UTF-8.
const (
	guestLogBurst   = 100
	guestLogWindow  = time.Second
	guestLogMaxLine = 4 << 10
)

// guestLog is what one guest's lines go through on their way to the log.
type guestLog struct {
	log   *logrus.Entry
	limit *ratelog.Limiter
}

func newGuestLog(log *logrus.Entry) *guestLog {
	return &guestLog{log: log, limit: ratelog.New(guestLogBurst, guestLogWindow)}
}

// line logs msg at level, unless the guest has used up its lines for now.
func (g *guestLog) line(log *logrus.Entry, level logrus.Level, msg string) {
	if log, ok := g.limit.AllowEntry(log); ok {
		log.Log(level, guestLine(msg))
	}
}

// flush says, once the guest is closed, how many of its last lines were
// held back.
func (g *guestLog) flush() {
	if n := g.limit.Flush(); n > 0 {
		g.log.WithField("suppressed", n).Warn("nrikit: lines the WASM plugin logged were suppressed")
	}
}

// guestLine is msg with what is not valid UTF-8 replaced, cut to
// guestLogMaxLine bytes on a character boundary.
func guestLine(msg string) string {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	cut := len(msg) > guestLogMaxLine
	if cut {
		n := guestLogMaxLine
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n] + " [cut]"
	}
	return msg
}
