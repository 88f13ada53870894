// SPDX-License-Identifier: Apache-2.0

// The runtime's Metrics as the relay reports to it: outcomes converted, and a panic in it ending no process.

package adaptation

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/panics"
)

// runtimeMetrics is the runtime's Metrics (and its CallFailureMetrics, if
// it implements that) as relay.Metrics. nrikit calls it on its own
// goroutines with what plugins chose (their names, what they returned), so
// a panic in it is not let end the process: it is logged with its stack,
// and the measurement is lost. The plugin is not blamed: a recorder that
// panics would do so for every plugin.
type runtimeMetrics struct {
	m   Metrics
	f   CallFailureMetrics // nil when m does not implement it
	log *logrus.Entry
}

func newRuntimeMetrics(m Metrics, log *logrus.Entry) *runtimeMetrics {
	f, _ := m.(CallFailureMetrics)
	return &runtimeMetrics{m: m, f: f, log: log}
}

// guard runs one call of the recorder.
func (r *runtimeMetrics) guard(plugin string, call func()) {
	if err := recordSafely(call); err != nil {
		r.log.WithFields(logrus.Fields{"plugin": plugin, "stack": err.(*panics.Error).Stack}).
			WithError(err).Error("nrikit: the runtime's metrics recorder panicked")
	}
}

func recordSafely(call func()) (err error) {
	defer panics.Recover(&err)
	call()
	return nil
}

func (r *runtimeMetrics) PluginInvoked(plugin string, ev api.Event, o nri.Outcome, latency time.Duration) {
	r.guard(plugin, func() { r.m.PluginInvoked(plugin, ev, Outcome(o), latency) })
}

func (r *runtimeMetrics) PluginCallFailed(plugin string, ev api.Event, o nri.Outcome, err error) {
	if r.f != nil {
		r.guard(plugin, func() { r.f.PluginCallFailed(plugin, ev, Outcome(o), err) })
	}
}

func (r *runtimeMetrics) AdjustmentsReturned(plugin string, ev api.Event, adjusted, updates, evictions int) {
	r.guard(plugin, func() { r.m.AdjustmentsReturned(plugin, ev, adjusted, updates, evictions) })
}

func (r *runtimeMetrics) PluginCount(n int) {
	r.guard("", func() { r.m.PluginCount(n) })
}
