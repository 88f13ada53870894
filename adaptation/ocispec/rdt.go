// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"slices"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// rdtPlan is an RDT adjustment: an optional removal of the whole Intel RDT
// section, then the sub-fields that are present.
type rdtPlan struct {
	remove     bool
	closID     replace[string]
	schemata   replace[[]string]
	monitoring replace[bool]
}

func planRdt(r *api.LinuxRdt) *rdtPlan {
	if r == nil {
		return nil
	}
	p := &rdtPlan{remove: r.Remove}
	if r.ClosId != nil {
		p.closID = replaceWith(r.ClosId.Value)
	}
	if r.Schemata != nil {
		p.schemata = replaceWith(slices.Clone(r.Schemata.Value))
	}
	if r.EnableMonitoring != nil {
		p.monitoring = replaceWith(r.EnableMonitoring.Value)
	}
	return p
}

func (p *rdtPlan) drop(spec *rspec.Spec) {
	if p != nil && p.remove && spec.Linux != nil {
		spec.Linux.IntelRdt = nil
	}
}

// apply sets the sub-fields. Schemata supersede the legacy L3 and MB schema
// strings, which the spec says must not be given with them.
func (p *rdtPlan) apply(l *rspec.Linux) {
	if p == nil {
		return
	}
	if p.closID.ok {
		ensureRdt(l).ClosID = p.closID.v
	}
	if p.schemata.ok {
		r := ensureRdt(l)
		r.Schemata = p.schemata.v
		if len(r.Schemata) > 0 {
			r.L3CacheSchema, r.MemBwSchema = "", ""
		}
	}
	if p.monitoring.ok {
		ensureRdt(l).EnableMonitoring = p.monitoring.v
	}
	dropEmptyRdt(l)
}

func ensureRdt(l *rspec.Linux) *rspec.LinuxIntelRdt {
	if l.IntelRdt == nil {
		l.IntelRdt = &rspec.LinuxIntelRdt{}
	}
	return l.IntelRdt
}

// dropEmptyRdt removes an Intel RDT section that asks for nothing: runtimes
// refuse any Intel RDT section on hosts without resctrl.
func dropEmptyRdt(l *rspec.Linux) {
	r := l.IntelRdt
	if r != nil && r.ClosID == "" && len(r.Schemata) == 0 && r.L3CacheSchema == "" &&
		r.MemBwSchema == "" && !r.EnableMonitoring {
		l.IntelRdt = nil
	}
}
