// SPDX-License-Identifier: Apache-2.0

package main

import (
	"sync"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// Call is one plugin call of an event, as nrikit's Metrics reported it.
type Call struct {
	Plugin string `json:"plugin"`
	// Event is set only when it differs from the step's event: nrikit may
	// deliver a missed StopPodSandbox before a RemovePodSandbox, for example.
	Event     string             `json:"event,omitempty"`
	Outcome   adaptation.Outcome `json:"outcome"`
	LatencyMS float64            `json:"latency_ms"`
	// What the plugin asked for (AdjustmentsReturned).
	Adjusted  int `json:"adjusted,omitempty"`
	Updates   int `json:"updates,omitempty"`
	Evictions int `json:"evictions,omitempty"`
	// Error says why a call did not end ok: the plugin's error, the timeout,
	// the lost connection, the validator's rejection.
	Error string `json:"error,omitempty"`
}

// changed tells whether the plugin asked for anything.
func (c Call) changed() bool { return c.Adjusted+c.Updates+c.Evictions > 0 }

type counts struct{ adjusted, updates, evictions int }

// recorder is the Metrics sink: it collects the plugin calls of the step
// being driven, in call order, and signals plugin count changes.
type recorder struct {
	mu      sync.Mutex
	inStep  bool
	step    api.Event
	calls   []Call
	pending map[string]counts // AdjustmentsReturned comes before PluginInvoked
	reasons map[string]string // so does PluginCallFailed
	stray   []Call            // calls outside any step
	count   chan struct{}     // one buffered signal per PluginCount burst
}

var (
	_ adaptation.Metrics            = (*recorder)(nil)
	_ adaptation.CallFailureMetrics = (*recorder)(nil)
)

func newRecorder() *recorder {
	return &recorder{pending: map[string]counts{}, reasons: map[string]string{}, count: make(chan struct{}, 1)}
}

// begin starts collecting the calls of one step.
func (r *recorder) begin(ev api.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inStep, r.step, r.calls = true, ev, nil
	clear(r.pending)
	clear(r.reasons)
}

// end returns the calls collected since begin.
func (r *recorder) end() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inStep = false
	calls := r.calls
	r.calls = nil
	if calls == nil {
		return []Call{} // JSON: [] rather than null
	}
	return calls
}

// strays returns the calls made outside any step.
func (r *recorder) strays() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.stray...)
}

// countChanged receives a value after the number of plugins changed.
func (r *recorder) countChanged() <-chan struct{} { return r.count }

func (r *recorder) PluginInvoked(plugin string, ev api.Event, outcome adaptation.Outcome, latency time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := Call{Plugin: plugin, Outcome: outcome, LatencyMS: millis(latency)}
	n := r.pending[plugin]
	delete(r.pending, plugin)
	c.Adjusted, c.Updates, c.Evictions = n.adjusted, n.updates, n.evictions
	c.Error = r.reasons[plugin]
	delete(r.reasons, plugin)
	if !r.inStep {
		c.Event = ev.Name()
		r.stray = append(r.stray, c)
		return
	}
	if ev != r.step {
		c.Event = ev.Name()
	}
	r.calls = append(r.calls, c)
}

func (r *recorder) AdjustmentsReturned(plugin string, _ api.Event, adjusted, updates, evictions int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.pending[plugin]
	r.pending[plugin] = counts{n.adjusted + adjusted, n.updates + updates, n.evictions + evictions}
}

func (r *recorder) PluginCallFailed(plugin string, _ api.Event, _ adaptation.Outcome, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reasons[plugin] = err.Error()
}

func (r *recorder) PluginCount(int) {
	select {
	case r.count <- struct{}{}:
	default: // a signal is already pending
	}
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}
