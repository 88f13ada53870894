// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"context"
	"io"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// countingRecorder counts the warnings it gets.
type countingRecorder struct{ n int }

func (r *countingRecorder) warn(context.Context, string, string) { r.n++ }

// TestDeprecationRecordedAfterDeparture: a plugin's failed call can return
// after the plugin was forgotten, before or after it was closed. The
// deprecation is reported once all the same, and never listed for a plugin
// that is gone.
func TestDeprecationRecordedAfterDeparture(t *testing.T) {
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	for _, closeFirst := range []bool{false, true} {
		rec := &countingRecorder{}
		d := &deprecations{recorder: rec.warn, log: logrus.NewEntry(logger)}
		p := newPlugin("10", "a", nri.Builtin, nil, inProcessConn{}, logrus.NewEntry(logger))
		ctx := context.Background()

		d.record(ctx, p, api.Event_RUN_POD_SANDBOX)
		d.forget(p)
		if closeFirst {
			p.close()
		}
		d.record(ctx, p, api.Event_RUN_POD_SANDBOX)  // the late return of a repeated event
		d.record(ctx, p, api.Event_STOP_POD_SANDBOX) // and of a new one
		p.close()

		if rec.n != 2 {
			t.Errorf("closeFirst=%v: %d warnings, want 2 (one per event)", closeFirst, rec.n)
		}
		if got := d.list(); len(got) != 0 {
			t.Errorf("closeFirst=%v: Deprecations() = %+v for a plugin that is gone", closeFirst, got)
		}
		if len(d.byPlugin) != 0 {
			t.Errorf("closeFirst=%v: %d records kept for a plugin that is gone", closeFirst, len(d.byPlugin))
		}
	}
}
