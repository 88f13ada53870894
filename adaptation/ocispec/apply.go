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

// Applier applies adjustments and updates. Its resolvers cover the
// class-based resources a spec cannot express by itself; the zero value is
// what Apply and ApplyResources use.
type Applier struct {
	// BlockIOClass turns a block I/O class into the spec's block I/O
	// settings, which replace spec.Linux.Resources.BlockIO. Nil ignores
	// block I/O classes: they are the runtime's to apply.
	BlockIOClass func(class string) (*rspec.LinuxBlockIO, error)
	// RDTClass turns an RDT class into the spec's Intel RDT settings, which
	// replace spec.Linux.IntelRdt. Nil uses the class as the CLOS ID.
	RDTClass func(class string) (*rspec.LinuxIntelRdt, error)
}

// Apply applies a merged CreateContainer adjustment to spec, in place, with
// the zero Applier. See the package documentation for what is applied.
func Apply(spec *rspec.Spec, adj *api.ContainerAdjustment) error {
	return Applier{}.Apply(spec, adj)
}

// ApplyResources applies resources from a ContainerUpdate or an
// UpdateContainer reply to spec.Linux.Resources, with the zero Applier.
func ApplyResources(spec *rspec.Spec, res *api.LinuxResources) error {
	return Applier{}.ApplyResources(spec, res)
}

// Apply applies adj to spec. On error spec is unchanged; errors about the
// adjustment's values wrap ErrInvalidAdjustment.
func (a Applier) Apply(spec *rspec.Spec, adj *api.ContainerAdjustment) error {
	if adj == nil {
		return nil
	}
	if spec == nil {
		return errNilSpec
	}
	p, err := a.plan(adj)
	if err != nil {
		return err
	}
	p.apply(spec)
	return nil
}

// ApplyResources applies res to spec.Linux.Resources. On error spec is
// unchanged.
func (a Applier) ApplyResources(spec *rspec.Spec, res *api.LinuxResources) error {
	if res == nil {
		return nil
	}
	if spec == nil {
		return errNilSpec
	}
	p, err := a.planResources(res)
	if err != nil {
		return err
	}
	p.apply(spec)
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

// plan is an adjustment converted to spec values and checked; applying it
// cannot fail, which is what makes Apply all-or-nothing.
type plan struct {
	annotations mapEdit[string]
	mounts      listEdit[rspec.Mount]
	env         listEdit[string]
	args        []string
	hooks       *rspec.Hooks
	rlimits     []rspec.POSIXRlimit
	linux       *linuxPlan
}

func (a Applier) plan(adj *api.ContainerAdjustment) (*plan, error) {
	p := &plan{}
	steps := []func() error{
		func() error { return outOfRange(limits.Adjustment(adj)) },
		func() (err error) { p.annotations, err = planMap("annotation", adj.Annotations, keep); return err },
		func() (err error) { p.mounts, err = planMounts(adj.Mounts); return err },
		func() (err error) { p.env, err = planEnv(adj.Env); return err },
		func() (err error) { p.args, err = planArgs(adj.Args); return err },
		func() (err error) { p.hooks, err = planHooks(adj.Hooks); return err },
		func() (err error) { p.rlimits, err = planRlimits(adj.Rlimits); return err },
		func() (err error) { p.linux, err = a.planLinux(adj.Linux); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *plan) apply(spec *rspec.Spec) {
	p.annotations.apply(&spec.Annotations)
	applyMounts(spec, p.mounts)
	applyEnv(spec, p.env)
	applyArgs(spec, p.args)
	applyHooks(spec, p.hooks)
	applyRlimits(spec, p.rlimits)
	p.linux.apply(spec)
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
