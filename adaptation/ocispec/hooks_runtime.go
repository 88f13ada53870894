// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"fmt"
	"maps"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// applyPlan applies a checked adjustment to spec (Apply's working copy) in
// the reference generator's order, so that each hook of the Applier sees
// the spec as its counterpart there does:
//
//  1. annotations, after the AnnotationFilter;
//  2. env, args, OCI hooks;
//  3. CDI devices, by the CDIDeviceInjector: the plugins' device and mount
//     edits below apply on top of what it injected;
//  4. linux devices (and their cgroup rules), cgroups path, OOM score, I/O
//     priority, scheduler, seccomp, namespaces, sysctl, net devices, memory
//     policy;
//  5. resource values, then the ResourceChecker on the result;
//  6. RDT removal, block I/O class, RDT class, RDT settings;
//  7. mounts, rlimits.
//
// Only hooks and the host's mount propagation fail here; the caller
// discards spec when one does.
func (a Applier) applyPlan(spec *rspec.Spec, adj *api.ContainerAdjustment, p *plan) error {
	newLinux := spec.Linux == nil
	if err := a.applyAnnotations(spec, adj.Annotations); err != nil {
		return err
	}
	applyEnv(spec, p.env)
	applyArgs(spec, p.args)
	applyHooks(spec, p.hooks)
	if err := a.injectCDIDevices(spec, adj); err != nil {
		return err
	}
	if l := p.linux; l != nil {
		l.applyEdits(spec)
		if err := a.applyResources(spec, l.resources, l.rdt); err != nil {
			return err
		}
		l.rdt.apply(ensureLinux(spec))
	}
	if err := applyMounts(spec, p.mounts); err != nil {
		return err
	}
	applyRlimits(spec, p.rlimits)
	prune(&spec.Linux, newLinux)
	return nil
}

// applyAnnotations filters a copy of the annotations (the filter may edit
// its argument; the adjustment stays as the plugins left it) and applies
// what the filter kept.
func (a Applier) applyAnnotations(spec *rspec.Spec, in map[string]string) error {
	if a.AnnotationFilter != nil {
		var err error
		if in, err = a.AnnotationFilter(maps.Clone(in)); err != nil {
			return fmt.Errorf("annotation filter: %w", err)
		}
	}
	e, err := planAnnotations(in)
	if err != nil {
		return fmt.Errorf("annotation filter result: %w", err)
	}
	e.apply(&spec.Annotations)
	return nil
}

// injectCDIDevices calls the CDIDeviceInjector when the adjustment has CDI
// devices with names.
func (a Applier) injectCDIDevices(spec *rspec.Spec, adj *api.ContainerAdjustment) error {
	names := CDIDevices(adj)
	if a.CDIDeviceInjector == nil || len(names) == 0 {
		return nil
	}
	if err := a.CDIDeviceInjector(spec, names); err != nil {
		return fmt.Errorf("CDI devices %q: %w", names, err)
	}
	return nil
}

// applyResources sets the resource values, lets the ResourceChecker see and
// edit the result, then applies the classes. rdt, if any, drops the Intel
// RDT section before the RDT class is applied.
func (a Applier) applyResources(spec *rspec.Spec, p *resourcesPlan, rdt *rdtPlan) error {
	if p == nil {
		rdt.drop(spec)
		return nil
	}
	l := ensureLinux(spec)
	p.applyValues(l)
	if a.ResourceChecker != nil {
		if err := a.ResourceChecker(l.Resources); err != nil {
			return fmt.Errorf("resource check: %w", err)
		}
	}
	rdt.drop(spec)
	if err := a.applyBlockIOClass(l, p.blockIOClass); err != nil {
		return err
	}
	if err := a.applyRDTClass(l, p.rdtClass); err != nil {
		return err
	}
	dropEmptyRdt(l)
	return nil
}

// applyBlockIOClass resolves and sets a block I/O class; without a resolver
// the class is the runtime's business.
func (a Applier) applyBlockIOClass(l *rspec.Linux, class *string) error {
	if class == nil || a.BlockIOClass == nil {
		return nil
	}
	var b *rspec.LinuxBlockIO
	if *class != "" {
		var err error
		if b, err = a.BlockIOClass(*class); err != nil {
			return fmt.Errorf("block I/O class %q: %w", *class, err)
		}
	}
	switch {
	case b != nil:
		if l.Resources == nil {
			l.Resources = &rspec.LinuxResources{}
		}
		l.Resources.BlockIO = b
	case l.Resources != nil:
		l.Resources.BlockIO = nil
	}
	return nil
}

// applyRDTClass resolves and sets an RDT class; without a resolver the class
// is the CLOS ID.
func (a Applier) applyRDTClass(l *rspec.Linux, class *string) error {
	switch {
	case class == nil:
		return nil
	case a.RDTClass == nil:
		ensureRdt(l).ClosID = *class
		return nil
	case *class == "":
		l.IntelRdt = nil
		return nil
	}
	rdt, err := a.RDTClass(*class)
	if err != nil {
		return fmt.Errorf("RDT class %q: %w", *class, err)
	}
	l.IntelRdt = rdt
	return nil
}
