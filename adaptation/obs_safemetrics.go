// SPDX-License-Identifier: Apache-2.0

// Calling the runtime's Metrics so that its panic ends no process.

package adaptation

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/panics"
)

// safeMetrics calls the runtime's Metrics on nrikit's goroutines with what
// plugins chose (their names, what they returned), so a panic in it is not
// let end the process: it is logged with its stack, and the measurement is
// lost. The plugin is not blamed: a recorder that panics would do so for
// every plugin.
type safeMetrics struct {
	m   Metrics
	log *logrus.Entry
}

// safeFailureMetrics is safeMetrics for a Metrics that also implements
// CallFailureMetrics.
type safeFailureMetrics struct {
	safeMetrics
	f CallFailureMetrics
}

// guardMetrics wraps the runtime's Metrics, keeping the optional interface.
func guardMetrics(m Metrics, log *logrus.Entry) Metrics {
	if _, none := m.(noopMetrics); none {
		return m
	}
	s := safeMetrics{m: m, log: log}
	if f, ok := m.(CallFailureMetrics); ok {
		return safeFailureMetrics{s, f}
	}
	return s
}

// guard runs one call of the recorder.
func (s safeMetrics) guard(plugin string, call func()) {
	if err := recordSafely(call); err != nil {
		s.log.WithFields(logrus.Fields{"plugin": plugin, "stack": panicIn(err).Stack}).
			WithError(err).Error("nrikit: the runtime's metrics recorder panicked")
	}
}

func recordSafely(call func()) (err error) {
	defer panics.Recover(&err)
	call()
	return nil
}

func (s safeMetrics) PluginInvoked(plugin string, ev api.Event, o Outcome, latency time.Duration) {
	s.guard(plugin, func() { s.m.PluginInvoked(plugin, ev, o, latency) })
}

func (s safeMetrics) AdjustmentsReturned(plugin string, ev api.Event, adjusted, updates, evictions int) {
	s.guard(plugin, func() { s.m.AdjustmentsReturned(plugin, ev, adjusted, updates, evictions) })
}

func (s safeMetrics) PluginCount(n int) {
	s.guard("", func() { s.m.PluginCount(n) })
}

func (s safeFailureMetrics) PluginCallFailed(plugin string, ev api.Event, o Outcome, err error) {
	s.guard(plugin, func() { s.f.PluginCallFailed(plugin, ev, o, err) })
}
