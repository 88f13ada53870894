// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// record is one line of the event log.
type record struct {
	Plugin        string `json:"plugin"` // idx-name as registered
	Event         string `json:"event"`  // handler name, see events and requests
	RPC           string `json:"rpc"`    // ttrpc method that carried it, e.g. StateChange
	Pod           string `json:"pod"`
	PodName       string `json:"pod_name"`
	Container     string `json:"container"`
	ContainerName string `json:"container_name"`
	Stub          string `json:"stub"`

	// Configure only.
	Config  *string `json:"config,omitempty"`
	Runtime string  `json:"runtime,omitempty"` // name/version
	Mask    int32   `json:"mask,omitempty"`    // subscribed events
	Pid     int     `json:"pid,omitempty"`

	// Synchronize only.
	Pods         *int     `json:"pods,omitempty"`
	Containers   *int     `json:"containers,omitempty"`
	PodIDs       []string `json:"pod_ids,omitzero"`
	ContainerIDs []string `json:"container_ids,omitzero"`

	// UpdatePodSandbox, UpdateContainer: requested CPU shares, if any.
	CPUShares *uint64 `json:"cpu_shares,omitempty"`

	Action string `json:"action,omitempty"` // exit, hang or fail, as configured
	Error  string `json:"error,omitempty"`  // why Configure failed
}

// recorder appends records to the event log, one write(2) per line on a file
// opened with O_APPEND, so a line is in the file before the handler returns
// and several plugins may share one file.
type recorder struct {
	mu   sync.Mutex
	path string
	f    *os.File // nil means stdout
}

// open switches to the log file at path; "" means stdout.
func (r *recorder) open(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if path == r.path {
		return nil
	}
	var f *os.File
	if path != "" {
		var err error
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("event log: %w", err)
		}
	}
	if r.f != nil {
		r.f.Close()
	}
	r.path, r.f = path, f
	return nil
}

func (r *recorder) write(rec *record) {
	line, err := json.Marshal(rec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "event log: %v\n", err)
		return
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.f
	if out == nil {
		out = os.Stdout
	}
	if _, err := out.Write(line); err != nil {
		fmt.Fprintf(os.Stderr, "event log %s: %v\n", r.path, err)
	}
}

func (r *recorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		r.f.Close()
		r.f, r.path = nil, ""
	}
}
