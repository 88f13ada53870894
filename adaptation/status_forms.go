// SPDX-License-Identifier: Apache-2.0

// Status's public forms made from internal/status's, field by field, when the runtime asks.

package adaptation

import (
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/status"
)

// pluginStatus is one active plugin's entry of Status: info and its counters.
func pluginStatus(info PluginInfo, c status.PluginCalls) PluginStatus {
	ps := PluginStatus{PluginInfo: info, JoinedAt: c.JoinedAt, Calls: make([]EventCalls, len(c.Calls))}
	ps.LastError = lastErrorOf(c.LastError)
	for i, ec := range c.Calls {
		ps.Calls[i] = eventCalls(ec)
	}
	return ps
}

// lastErrorOf is a plugin's last failed call in the public form; nil for
// none.
func lastErrorOf(last *nri.CallError) *PluginLastError {
	if last == nil {
		return nil
	}
	return &PluginLastError{Event: last.Event, Outcome: Outcome(last.Outcome), Error: last.Error, Time: last.Time}
}

func eventCalls(ec status.EventCalls) EventCalls {
	out := EventCalls{Event: ec.Event, Total: ec.Total, NotCalled: ec.NotCalled, Outcomes: make(map[Outcome]uint64, len(ec.Outcomes))}
	for o, n := range ec.Outcomes {
		out.Outcomes[Outcome(o)] = n
	}
	out.Latency = LatencyHistogram{Sum: Duration(ec.Latency.Sum), Max: Duration(ec.Latency.Max), Buckets: make([]LatencyBucket, len(ec.Latency.Buckets))}
	for i, b := range ec.Latency.Buckets {
		out.Latency.Buckets[i] = LatencyBucket{UpperBound: b.UpperBound, Count: b.Count}
	}
	return out
}

// pluginChanges are the changes status keeps, as Status reports them; never
// nil.
func pluginChanges(changes []nri.Change) []PluginChange {
	out := make([]PluginChange, len(changes))
	for i, c := range changes {
		out[i] = pluginChange(c)
	}
	return out
}

// joiningPlugins are the handshakes status lists, as Status reports them;
// never nil.
func joiningPlugins(joiners []status.JoiningPlugin) []JoiningPlugin {
	out := make([]JoiningPlugin, len(joiners))
	for i, j := range joiners {
		out[i] = JoiningPlugin{Plugin: j.Plugin, PID: j.PID, Phase: j.Phase, Since: j.Since}
	}
	return out
}
