// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"

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
}
