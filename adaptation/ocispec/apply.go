// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"reflect"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// errNilSpec is not an ErrInvalidAdjustment: the caller, not a plugin, is wrong.
var errNilSpec = errors.New("ocispec: nil spec")

// Applier applies adjustments and updates, with the runtime's own rules
// plugged in. Each hook is optional and is called at the point of the
// application where the reference's spec generator calls its counterpart
// (see the package documentation, "Runtime hooks"); the zero value is what
// Apply and ApplyResources use.
type Applier struct {
	// AnnotationFilter gets a copy of the adjustment's annotations, removal
	// markers included, and returns the ones to apply, or an error that
	// fails the application (e.g. for an annotation the runtime disallows).
	// It is called for every adjustment, also one without annotations (with
	// nil), as in the reference. Nil applies them all.
	AnnotationFilter func(annotations map[string]string) (map[string]string, error)
	// CDIDeviceInjector injects the adjustment's CDI devices, by fully
	// qualified name, into spec. Nil leaves them to the runtime (see
	// CDIDevices).
	CDIDeviceInjector func(spec *rspec.Spec, devices []string) error
	// ResourceChecker checks, and may change, spec.Linux.Resources once the
	// resources of the adjustment or update are in (nil if the spec has
	// none): it may refuse a memory limit below the runtime's minimum, or
	// drop swap or hugepage limits the node's cgroups lack.
	ResourceChecker func(resources *rspec.LinuxResources) error
	// BlockIOClass turns a block I/O class into the spec's block I/O
	// settings, which replace spec.Linux.Resources.BlockIO; the class ""
	// clears them without a call. Nil ignores block I/O classes: they are
	// the runtime's to apply.
	BlockIOClass func(class string) (*rspec.LinuxBlockIO, error)
	// RDTClass turns an RDT class into the spec's Intel RDT settings, which
	// replace spec.Linux.IntelRdt; the class "" clears them without a call.
	// Nil uses the class as the CLOS ID.
	RDTClass func(class string) (*rspec.LinuxIntelRdt, error)
}

// Apply applies a merged CreateContainer adjustment to spec, with the zero
// Applier. See the package documentation for what is applied.
func Apply(spec *rspec.Spec, adj *api.ContainerAdjustment) error {
	return Applier{}.Apply(spec, adj)
}

// ApplyResources applies resources from a ContainerUpdate or an
// UpdateContainer reply to spec.Linux.Resources, with the zero Applier.
func ApplyResources(spec *rspec.Spec, res *api.LinuxResources) error {
	return Applier{}.ApplyResources(spec, res)
}

// Apply applies adj to spec. On error spec is unchanged, whichever step or
// hook failed; errors about the adjustment's values wrap
// ErrInvalidAdjustment and come before any hook is called. On success *spec
// is replaced as a whole: pointers into its sections taken before the call
// do not see the changes.
func (a Applier) Apply(spec *rspec.Spec, adj *api.ContainerAdjustment) error {
	if adj == nil {
		return nil
	}
	if spec == nil {
		return errNilSpec
	}
	p, err := planAdjustment(adj)
	if err != nil {
		return err
	}
	work := cloneSpec(spec)
	if err := a.applyPlan(work, adj, p); err != nil {
		return err
	}
	*spec = *work
	return nil
}

// ApplyResources applies res to spec.Linux.Resources, then calls the
// ResourceChecker and the class resolvers as Apply does. On error spec is
// unchanged.
func (a Applier) ApplyResources(spec *rspec.Spec, res *api.LinuxResources) error {
	if res == nil {
		return nil
	}
	if spec == nil {
		return errNilSpec
	}
	p, err := planResources(res)
	if err != nil {
		return err
	}
	work := cloneSpec(spec)
	newLinux := work.Linux == nil
	if err := a.applyResources(work, p, nil); err != nil {
		return err
	}
	prune(&work.Linux, newLinux)
	*spec = *work
	return nil
}

// CDIDevices lists the CDI devices of adj, which Apply leaves to the
// runtime's CDI registry.
func CDIDevices(adj *api.ContainerAdjustment) []string {
	var names []string
	for _, d := range adj.GetCDIDevices() {
		if d.GetName() != "" {
			names = append(names, d.GetName())
		}
	}
	return names
}

// plan is an adjustment converted to spec values and checked. Applying it
// can fail only in the Applier's hooks. Annotations are planned when
// applied, after the AnnotationFilter.
type plan struct {
	mounts  listEdit[rspec.Mount]
	env     listEdit[string]
	args    []string
	hooks   *rspec.Hooks
	rlimits []rspec.POSIXRlimit
	linux   *linuxPlan
}

func planAdjustment(adj *api.ContainerAdjustment) (*plan, error) {
	p := &plan{}
	steps := []func() error{
		func() error { return outOfRange(limits.Adjustment(adj)) },
		func() (err error) { _, err = planAnnotations(adj.Annotations); return err },
		func() (err error) { p.mounts, err = planMounts(adj.Mounts); return err },
		func() (err error) { p.env, err = planEnv(adj.Env); return err },
		func() (err error) { p.args, err = planArgs(adj.Args); return err },
		func() (err error) { p.hooks, err = planHooks(adj.Hooks); return err },
		func() (err error) { p.rlimits, err = planRlimits(adj.Rlimits); return err },
		func() (err error) { p.linux, err = planLinux(adj.Linux); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func planAnnotations(in map[string]string) (mapEdit[string], error) {
	return planMap("annotation", in, keep)
}

// keep is the conversion of plain string values.
func keep(s string) (string, error) { return s, nil }

// The ensure helpers create a spec section on first use, so that an
// adjustment that sets nothing there leaves it absent.

func ensureProcess(spec *rspec.Spec) *rspec.Process {
	if spec.Process == nil {
		spec.Process = &rspec.Process{}
	}
	return spec.Process
}

func ensureLinux(spec *rspec.Spec) *rspec.Linux {
	if spec.Linux == nil {
		spec.Linux = &rspec.Linux{}
	}
	return spec.Linux
}

func ensureResources(spec *rspec.Spec) *rspec.LinuxResources {
	l := ensureLinux(spec)
	if l.Resources == nil {
		l.Resources = &rspec.LinuxResources{}
	}
	return l.Resources
}

// prune drops a section that applying created but left empty, such as the
// linux section of a spec without one when only removals were asked for.
func prune[T any](section **T, created bool) {
	if created && *section != nil && reflect.ValueOf(*section).Elem().IsZero() {
		*section = nil
	}
}
