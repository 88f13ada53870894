// SPDX-License-Identifier: Apache-2.0

// MetricsRecorder: the reference-shaped metrics adapter.

package adaptation

import (
	"context"
	"fmt"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
)

// MetricsRecorder has the shape of the reference's Metrics interface, so
// that a runtime's existing implementation (containerd's, for one) plugs in
// unchanged through WithMetricsRecorder. Plugins are named "<idx>-<name>"
// and operations by the event's name ("CreateContainer"), as the reference
// does.
type MetricsRecorder interface {
	RecordPluginInvocation(pluginName, operation string, err error)
	RecordPluginLatency(pluginName, operation string, latency time.Duration)
	RecordPluginAdjustments(pluginName, operation string, adjust *ContainerAdjustment, updates, evicts int)
	UpdatePluginCount(count int)
}

// WithMetricsRecorder reports measurements to a reference-shaped recorder.
// nrikit's outcomes reach it as the errors the reference would pass, so that
// labels derived from them stay the same: a timeout wraps
// context.DeadlineExceeded, a cancelled caller context.Canceled, a lost
// connection ttrpc.ErrClosed, a plugin's own error is a status error with
// code Unknown (the plugin's real code is not kept), and a validator's
// rejection is no error at all (its call succeeded). The adjustment passed
// to RecordPluginAdjustments is an empty one when the plugin adjusted the
// container, nil otherwise: nrikit's metrics do not carry its content.
// It replaces any earlier WithMetrics.
func WithMetricsRecorder(r MetricsRecorder) Option {
	if r == nil {
		return WithMetrics(nil)
	}
	return WithMetrics(recorderMetrics{r})
}

type recorderMetrics struct{ r MetricsRecorder }

func (m recorderMetrics) PluginInvoked(plugin string, ev api.Event, o Outcome, latency time.Duration) {
	m.r.RecordPluginLatency(plugin, ev.Name(), latency)
	m.r.RecordPluginInvocation(plugin, ev.Name(), outcomeErrors[o])
}

func (m recorderMetrics) AdjustmentsReturned(plugin string, ev api.Event, adjusted, updates, evictions int) {
	var adjust *ContainerAdjustment
	if adjusted > 0 {
		adjust = &ContainerAdjustment{}
	}
	m.r.RecordPluginAdjustments(plugin, ev.Name(), adjust, updates, evictions)
}

func (m recorderMetrics) PluginCount(n int) { m.r.UpdatePluginCount(n) }

// outcomeErrors are made once: they are passed on every plugin call.
var outcomeErrors = map[Outcome]error{
	OutcomeError:    status.Error(codes.Unknown, "nrikit: plugin returned an error"),
	OutcomeTimeout:  fmt.Errorf("nrikit: plugin timed out: %w", context.DeadlineExceeded),
	OutcomeLost:     fmt.Errorf("nrikit: connection to plugin lost: %w", ttrpc.ErrClosed),
	OutcomeCanceled: fmt.Errorf("nrikit: caller gave up: %w", context.Canceled),
}
