// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// TestFloodOfGarbageIsLoggedBounded: 20,000 messages nrikit does not speak
// give a handful of log lines, which with the connection's last line
// account for every one of them, and nothing in ttrpc's own log (logrus'
// standard logger).
func TestFloodOfGarbageIsLoggedBounded(t *testing.T) {
	const flood = 20000
	for _, c := range []struct {
		name  string
		conn  string
		flood func(p *rawPlugin)
	}{
		{
			// The flood comes before registration, and the runtime's
			// Configure is answered after it on the same connection.
			name: "replies to calls never made", conn: pluginConn,
			flood: func(p *rawPlugin) {
				msgs := make([][]byte, flood)
				for i := range msgs {
					msgs[i] = ttrpcMessage(uint32(1001+2*i), 2, 0, nil)
				}
				p.send(p.plugin, msgs...)
				p.register(1, "10", "flood", api.MaskOf(api.Event_RUN_POD_SANDBOX))
			},
		},
		{
			// After registration; a call answered after the flood shows
			// that the runtime has read it all.
			name: "data messages", conn: runtimeConn,
			flood: func(p *rawPlugin) {
				p.register(1, "10", "flood", api.MaskOf(api.Event_RUN_POD_SANDBOX))
				msgs := make([][]byte, flood+1)
				for i := range flood {
					msgs[i] = ttrpcMessage(3, 3, 0, []byte{0x0a, 0})
				}
				msgs[flood] = ttrpcMessage(5, 1, 0, call(runtimeService, "UpdateContainers", &api.UpdateContainersRequest{}))
				p.send(p.runtime, msgs...)
				p.response(5)
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkFDs(t)
			std := captureStandardLog(t)
			// The runtime's Configure is answered after the flood: give it
			// time to read the flood first on a loaded machine.
			e := newEnv(t, adaptation.WithRequestTimeout(waitLimit))
			t.Cleanup(func() {
				if t.Failed() {
					e.dumpLog()
				}
			})
			e.start()
			p := dialRaw(t, e.socket)
			c.flood(p)
			p.close()
			e.waitEntry(func(entry *logrus.Entry) bool {
				return entry.Data["conn"] == nil && strings.Contains(entry.Message, "more protocol violations")
			})
			lines, accounted := 0, 0
			for _, entry := range e.hook.AllEntries() {
				if entry.Data["conn"] == c.conn {
					lines++
					accounted++
				}
				if n, ok := entry.Data["suppressed"].(int); ok {
					accounted += n
				}
			}
			t.Logf("%d violations gave %d log lines", flood, lines)
			if lines > 3*10 {
				t.Errorf("%d log lines for one peer's garbage", lines)
			}
			if accounted != flood {
				e.dumpLog()
				t.Errorf("the log accounts for %d violations, want %d", accounted, flood)
			}
			for _, entry := range std.AllEntries() {
				if strings.Contains(entry.Message, "ttrpc") {
					t.Errorf("ttrpc logged %q", entry.Message)
				}
			}
		})
	}
}

// waitEntry waits for a log line that ok accepts.
func (e *env) waitEntry(ok func(*logrus.Entry) bool) *logrus.Entry {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.logSignal.changed()
		for _, entry := range e.hook.AllEntries() {
			if ok(entry) {
				return entry
			}
		}
		select {
		case <-changed:
		case <-deadline:
			e.dumpLog()
			e.t.Fatal("no such log line")
		}
	}
}

// captureStandardLog records what is logged through logrus' standard
// logger, where ttrpc's client logs, for the duration of the test.
func captureStandardLog(t *testing.T) *logtest.Hook {
	hook := &logtest.Hook{}
	std := logrus.StandardLogger()
	old := std.ReplaceHooks(logrus.LevelHooks{})
	std.AddHook(hook)
	t.Cleanup(func() { std.ReplaceHooks(old) })
	return hook
}
