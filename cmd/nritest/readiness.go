// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
)

// ReadinessReport is whether the required plugins (--required-plugins, or
// --config's) were active when the lifecycle began (adaptation.Readiness),
// or, for --status-of, now.
type ReadinessReport struct {
	// Gate is the readiness gate's settings, when it is on.
	Gate      string   `json:"gate,omitempty"`
	Ready     bool     `json:"ready"`
	Required  []string `json:"required"`
	Missing   []string `json:"missing,omitempty"` // each missing plugin's story
	Condition string   `json:"condition"`         // the CRI condition: "NRIPluginsReady=true"
}

// requiredPluginsOption turns --required-plugins on: the default validator
// with those required_plugins, as a runtime configured so runs it.
func requiredPluginsOption(names []string) adaptation.Option {
	return adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: names})
}

func readinessReport(r adaptation.Readiness, gate *adaptation.ReadinessConfig) *ReadinessReport {
	c := r.Condition()
	out := &ReadinessReport{Ready: r.Ready, Required: r.Required, Condition: fmt.Sprintf("%s=%v", c.Type, c.Status)}
	if gate != nil {
		out.Gate = fmt.Sprintf("wait %v, on_timeout %s, setup_reserve %v", time.Duration(gate.Wait), gate.OnTimeout, time.Duration(gate.SetupReserve))
		if len(gate.ExemptNamespaces) > 0 {
			out.Gate += ", exempt " + strings.Join(gate.ExemptNamespaces, ", ")
		}
	}
	if c.Reason != "" {
		out.Condition += " (" + c.Reason + ")"
	}
	for _, m := range r.Missing {
		out.Missing = append(out.Missing, m.String())
	}
	return out
}

// textReadiness is the READINESS section, when plugins are required.
func (r *Report) textReadiness(w io.Writer) {
	if r.Readiness == nil {
		return
	}
	state := "ready"
	if !r.Readiness.Ready {
		state = "NOT READY"
	}
	when := "when the lifecycle began"
	if r.Status != nil && r.Events == nil {
		when = "now" // --status-of
	}
	required := strings.Join(r.Readiness.Required, ", ")
	if required == "" {
		required = "none on the node; pods' annotations may add some"
	}
	fmt.Fprintf(w, "READINESS (required plugins %s: %s)\n", when, required)
	if r.Readiness.Gate != "" {
		fmt.Fprintf(w, "gate\t%s: pods wait in AwaitPlugins for the plugins they require\n", r.Readiness.Gate)
	}
	fmt.Fprintf(w, "%s\t%s\n", state, r.Readiness.Condition)
	for _, m := range r.Readiness.Missing {
		fmt.Fprintf(w, "  missing\t%s\n", m)
		if strings.HasSuffix(m, "never connected") || strings.Contains(m, "never connected (") {
			fmt.Fprintf(w, "  \t%s\n", neverConnectedHint)
		}
	}
	fmt.Fprintln(w)
}

// neverConnectedHint is what to check when an expected plugin never
// connects: a plugin that connects itself needs an index and a name, and
// the reference stub exits before connecting without them.
const neverConnectedHint = "a plugin that connects itself needs an index and a name (NRI_PLUGIN_IDX and NRI_PLUGIN_NAME, " +
	"the stub's WithPluginIdx and WithPluginName, or a program file named NN-name); without them the reference stub " +
	`exits before it connects, saying invalid plugin index "…", must be 2 digits, or invalid plugin name "…", idx-pluginname expected`

// listFlag is a comma-separated list of names.
type listFlag struct{ names *[]string }

func (f listFlag) String() string {
	if f.names == nil {
		return ""
	}
	return strings.Join(*f.names, ",")
}

func (f listFlag) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name == "" {
			return fmt.Errorf("empty plugin name in %q", v)
		}
		*f.names = append(*f.names, name)
	}
	return nil
}
