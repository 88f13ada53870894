// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nrikit/nrikit/api"
)

// Record is one line of the event log: one call a plugin received.
type Record struct {
	Plugin string `json:"plugin"`          // plugin name
	Index  string `json:"index,omitempty"` // plugin index
	Event  string `json:"event"`           // event Name() or "Configure", "Synchronize", "Shutdown"
	// Via is "StateChange" when the event came through StateChange.
	Via       string `json:"via,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Container string `json:"container,omitempty"`
	// PodState is the api.PodSandboxState name of the pod of a
	// RunPodSandbox event.
	PodState string `json:"pod_state,omitempty"`
	// Pods, Containers and PodStates are the final Synchronize snapshot, all
	// chunks together.
	Pods       []string          `json:"pods,omitempty"`
	Containers []string          `json:"containers,omitempty"`
	PodStates  map[string]string `json:"pod_states,omitempty"`
	Reason     string            `json:"reason,omitempty"` // Shutdown reason
	Config     string            `json:"config,omitempty"` // ConfigureRequest.config
	Chunks     int               `json:"chunks,omitempty"` // Synchronize messages received
	// Error is the error the plugin was configured to return (Behaviour.Fail),
	// or that an UpdateLoop call got.
	Error string `json:"error,omitempty"`
	// Outcome is the result of an UpdateLoop call (OutcomeOK, ...).
	Outcome string `json:"outcome,omitempty"`
	// Annotations are a created container's, as received, with
	// Config.LogAnnotations.
	Annotations map[string]string `json:"annotations,omitempty"`
	PID         int               `json:"pid"`
}

// ID is the plugin's "<idx>-<name>".
func (r Record) ID() string { return api.PluginID(r.Index, r.Plugin) }

// eventLog appends records to a file shared by any number of plugin
// processes. Each record is a single write on an O_APPEND file, so lines from
// concurrent writers never interleave, and the write is done when the call
// returns: no buffer to flush before the plugin replies or dies.
type eventLog struct {
	mu     sync.Mutex
	f      *os.File // nil: logging disabled or closed
	closed bool
}

func openLog(path string) (*eventLog, error) {
	if path == "" {
		return &eventLog{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("nrikit: testplugin: event log: %w", err)
	}
	return &eventLog{f: f}, nil
}

func (l *eventLog) write(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		// A call after Close was not logged: say so rather than lose it.
		return ErrClosed
	}
	if l.f == nil {
		return nil
	}
	_, err = l.f.Write(line)
	return err
}

func (l *eventLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// ReadLog reads every record of an event log, in the order written.
func ReadLog(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var records []Record
	// A decoder, not a line scanner: a Synchronize record can be larger than
	// any fixed line limit.
	dec := json.NewDecoder(f)
	for {
		var r Record
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return records, nil
		}
		if err != nil {
			return records, fmt.Errorf("nrikit: testplugin: %s: record %d: %w", path, len(records)+1, err)
		}
		records = append(records, r)
	}
}

// Of returns the records of one plugin, named by its name or its
// "<idx>-<name>"; "" selects every plugin.
func Of(records []Record, plugin string) []Record {
	var out []Record
	for _, r := range records {
		if plugin == "" || r.Plugin == plugin || r.ID() == plugin {
			out = append(out, r)
		}
	}
	return out
}

// Events lists the event names one plugin received, in order (see Of).
func Events(records []Record, plugin string) []string {
	var out []string
	for _, r := range Of(records, plugin) {
		out = append(out, r.Event)
	}
	return out
}

// Find returns the records of one plugin (see Of) for one event name.
func Find(records []Record, plugin, event string) []Record {
	var out []Record
	for _, r := range Of(records, plugin) {
		if r.Event == event {
			out = append(out, r)
		}
	}
	return out
}

// Count is len(Find(records, plugin, event)).
func Count(records []Record, plugin, event string) int {
	return len(Find(records, plugin, event))
}
