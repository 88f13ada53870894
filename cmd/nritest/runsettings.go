// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
)

// RunSettings are the simulated runtime's settings, at the head of both the
// lifecycle report and the conformance report.
type RunSettings struct {
	Runtime         string `json:"runtime"`
	NRIVersion      string `json:"nri_version"`
	PluginSource    string `json:"plugin_source"` // where the plugins came from
	Socket          string `json:"socket,omitempty"`
	Config          string `json:"config,omitempty"` // --config
	RequestTimeout  string `json:"request_timeout"`
	RegisterTimeout string `json:"registration_timeout"`
	SyncTimeout     string `json:"sync_timeout"`
	// Observers and Filters are --observe and --filter: how the plugins
	// were rolled out.
	Observers []string                            `json:"observers,omitempty"`
	Filters   map[string]*adaptation.PluginFilter `json:"filters,omitempty"`
}

func newRunSettings(cfg config) RunSettings {
	return RunSettings{
		Runtime:         runtimeName + " " + runtimeVersion,
		NRIVersion:      adaptation.Version,
		Socket:          cfg.socket,
		Config:          cfg.configFile,
		RequestTimeout:  cfg.requestTimeout.String(),
		RegisterTimeout: cfg.regTimeout.String(),
		SyncTimeout:     cfg.syncTimeout.String(),
		Observers:       cfg.observe,
		Filters:         cfg.filters,
	}
}

// writeText writes the report's first lines, the title ("nritest" or
// "nritest --conformance") first.
func (s RunSettings) writeText(w io.Writer, title string) {
	fmt.Fprintf(w, "%s: simulated runtime %s (NRI %s), timeouts: request %s, registration %s, sync %s\n",
		title, s.Runtime, s.NRIVersion, s.RequestTimeout, s.RegisterTimeout, s.SyncTimeout)
	fmt.Fprintf(w, "  plugins:   %s\n", s.PluginSource)
	socket := "none (external plugins disabled; see --socket)"
	if s.Socket != "" {
		socket = s.Socket
	}
	fmt.Fprintf(w, "  socket:    %s\n", socket)
	if s.Config != "" {
		fmt.Fprintf(w, "  config:    %s (the runtime's NRI table, less its paths and socket)\n", s.Config)
	}
	for _, name := range s.Observers {
		fmt.Fprintf(w, "  observer:  %s (delivery = \"observe\": never waited for, its replies not applied)\n", name)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Filters)) {
		fmt.Fprintf(w, "  filter:    %s takes only the pods of %s\n", name, filterText(s.Filters[name]))
	}
}

// filterText is a filter as --filter's SPEC writes it.
func filterText(f *adaptation.PluginFilter) string {
	var parts []string
	for _, p := range []struct {
		key    string
		values []string
	}{{"namespaces", f.Namespaces}, {"exclude_namespaces", f.ExcludeNamespaces}, {"runtime_handlers", f.RuntimeHandlers},
		{"pod_labels", f.PodLabels}, {"pod_annotations", f.PodAnnotations}} {
		if len(p.values) > 0 {
			parts = append(parts, p.key+"="+strings.Join(p.values, ","))
		}
	}
	return strings.Join(parts, ";")
}
