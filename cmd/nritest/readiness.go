// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
)

// ReadinessReport is whether the required plugins (--required-plugins)
// were active when the lifecycle began (adaptation.Readiness).
type ReadinessReport struct {
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

func readinessReport(r adaptation.Readiness) *ReadinessReport {
	c := r.Condition()
	out := &ReadinessReport{Ready: r.Ready, Required: r.Required, Condition: fmt.Sprintf("%s=%v", c.Type, c.Status)}
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
	fmt.Fprintf(w, "READINESS (required plugins when the lifecycle began: %s)\n", strings.Join(r.Readiness.Required, ", "))
	fmt.Fprintf(w, "%s\t%s\n", state, r.Readiness.Condition)
	for _, m := range r.Readiness.Missing {
		fmt.Fprintf(w, "  missing\t%s\n", m)
	}
	fmt.Fprintln(w)
}

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
