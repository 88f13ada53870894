// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// recorder is an Applier whose five hooks log their calls, with what each
// saw of the spec, and can be told to fail.
type recorder struct {
	calls  []string
	failAt string // hook name whose call fails
}

var errHook = errors.New("refused by the runtime")

func (r *recorder) fail(name string) error {
	if name == r.failAt {
		return errHook
	}
	return nil
}

// applier returns the Applier. The CDI injector adds a device node, a
// mount and an env var, as a CDI spec does; the checker drops swap and
// hugepage limits, as CRI-O does on nodes without them.
func (r *recorder) applier() Applier {
	return Applier{
		AnnotationFilter: func(in map[string]string) (map[string]string, error) {
			r.calls = append(r.calls, fmt.Sprintf("filter %v", in))
			delete(in, "disallowed.example.com")
			return in, r.fail("filter")
		},
		CDIDeviceInjector: func(s *rspec.Spec, names []string) error {
			// what the plugins' edits before it have done: env is in, devices are not
			ensureProcess(s)
			ensureLinux(s)
			r.calls = append(r.calls, fmt.Sprintf("cdi %v env=%v devices=%d", names, s.Process.Env, len(s.Linux.Devices)))
			s.Linux.Devices = append(s.Linux.Devices, rspec.LinuxDevice{Path: "/dev/gpu0", Type: "c", Major: 195})
			s.Mounts = append(s.Mounts, rspec.Mount{Destination: "/usr/lib/gpu", Source: "/opt/gpu", Type: "bind"})
			s.Process.Env = append(s.Process.Env, "GPU=0")
			return r.fail("cdi")
		},
		ResourceChecker: func(res *rspec.LinuxResources) error {
			if res == nil {
				r.calls = append(r.calls, "check nil")
				return r.fail("check")
			}
			mem := res.Memory
			if mem == nil {
				mem = &rspec.LinuxMemory{}
			}
			r.calls = append(r.calls, fmt.Sprintf("check limit=%s swap=%s hugepages=%d blockio=%v devices=%d",
				show(mem.Limit), show(mem.Swap), len(res.HugepageLimits), res.BlockIO != nil, len(res.Devices)))
			mem.Swap = nil
			res.HugepageLimits = nil
			return r.fail("check")
		},
		BlockIOClass: func(class string) (*rspec.LinuxBlockIO, error) {
			r.calls = append(r.calls, "blockio "+class)
			return &rspec.LinuxBlockIO{Weight: ptr[uint16](10)}, r.fail("blockio")
		},
		RDTClass: func(class string) (*rspec.LinuxIntelRdt, error) {
			r.calls = append(r.calls, "rdt "+class)
			return &rspec.LinuxIntelRdt{ClosID: "resolved-" + class}, r.fail("rdt")
		},
	}
}

func show(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// hookedAdjustment touches every hook, and edits what the CDI injector
// injected: the plugin's edits must apply on top of it.
func hookedAdjustment() *api.ContainerAdjustment {
	return &api.ContainerAdjustment{
		Annotations: map[string]string{"a.example.com": "1", "disallowed.example.com": "x"},
		Env:         []*api.KeyValue{{Key: "A", Value: "1"}},
		CDIDevices:  []*api.CDIDevice{{Name: "vendor.com/gpu=0"}},
		Mounts:      []*api.Mount{{Destination: "/usr/lib/gpu", Source: "/opt/other", Type: "bind"}},
		Linux: &api.LinuxContainerAdjustment{
			Devices: []*api.LinuxDevice{{Path: "-/dev/gpu0"}, {Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229}},
			Resources: &api.LinuxResources{
				Memory:         &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1 << 30}},
				HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1}},
				BlockioClass:   &api.OptionalString{Value: "slow"},
				RdtClass:       &api.OptionalString{Value: "gold"},
			},
		},
	}
}

// TestHooksOrder: the five hooks are called once each, in the reference's
// order, each seeing the spec as the reference's counterpart does.
func TestHooksOrder(t *testing.T) {
	r := &recorder{}
	spec := sampleSpec()
	adj := hookedAdjustment()
	if err := r.applier().Apply(spec, adj); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"filter map[a.example.com:1 disallowed.example.com:x]",
		"cdi [vendor.com/gpu=0] env=[PATH=/usr/bin:/bin HOSTNAME=ctr0 TERM=xterm A=1] devices=0",
		// the limit is the new one, swap follows it, the device's cgroup rule is in, block I/O is not yet
		"check limit=1073741824 swap=1073741824 hugepages=1 blockio=false devices=2",
		"blockio slow",
		"rdt gold",
	}
	if !slices.Equal(r.calls, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(r.calls, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := adj.Annotations["disallowed.example.com"]; !ok {
		t.Error("the filter edited the adjustment's own annotations")
	}

	w := sampleSpec()
	w.Annotations["a.example.com"] = "1"
	w.Process.Env = append(w.Process.Env, "A=1", "GPU=0")
	// the plugin removed the injected node and took over the injected mount
	w.Linux.Devices = []rspec.LinuxDevice{{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229}}
	w.Mounts = append(w.Mounts, rspec.Mount{Destination: "/usr/lib/gpu", Source: "/opt/other", Type: "bind"})
	sortMounts(w.Mounts)
	res := w.Linux.Resources
	res.Devices = append(res.Devices, rspec.LinuxDeviceCgroup{Allow: true, Type: "c", Major: ptr[int64](10), Minor: ptr[int64](229), Access: "rwm"})
	res.Memory.Limit = ptr[int64](1 << 30) // swap and hugepages dropped by the checker
	res.BlockIO = &rspec.LinuxBlockIO{Weight: ptr[uint16](10)}
	w.Linux.IntelRdt = &rspec.LinuxIntelRdt{ClosID: "resolved-gold"}
	sameJSON(t, spec, w)
}

// TestHookFailureChangesNothing: whichever hook fails, and however much the
// hooks before it changed, the spec is deeply equal to what it was, and the
// error names the hook and wraps its error.
func TestHookFailureChangesNothing(t *testing.T) {
	prefixes := map[string]string{
		"filter": "annotation filter: ", "cdi": `CDI devices ["vendor.com/gpu=0"]: `, "check": "resource check: ",
		"blockio": `block I/O class "slow": `, "rdt": `RDT class "gold": `,
	}
	for hook, prefix := range prefixes {
		t.Run(hook, func(t *testing.T) {
			r := &recorder{failAt: hook}
			spec := sampleSpec()
			before := cloneSpec(spec)
			err := r.applier().Apply(spec, hookedAdjustment())
			if !errors.Is(err, errHook) || err.Error() != prefix+errHook.Error() {
				t.Errorf("error = %v, want %q wrapping the hook's", err, prefix+errHook.Error())
			}
			if errors.Is(err, ErrInvalidAdjustment) {
				t.Errorf("a runtime hook's error blames the plugins: %v", err)
			}
			if !reflect.DeepEqual(spec, before) {
				t.Errorf("failed %s changed the spec:\n%s", hook, lineDiff(string(specJSON(t, before)), string(specJSON(t, spec))))
			}
			if last := r.calls[len(r.calls)-1]; !strings.HasPrefix(last, hook) {
				t.Errorf("calls went on after the failure: %v", r.calls)
			}
		})
	}
}

// TestHookFailureOnUpdate: ApplyResources calls the checker and resolvers
// too, and is all-or-nothing as well.
func TestHookFailureOnUpdate(t *testing.T) {
	res := hookedAdjustment().Linux.Resources
	r := &recorder{}
	spec := sampleSpec()
	if err := r.applier().ApplyResources(spec, res); err != nil {
		t.Fatal(err)
	}
	want := []string{"check limit=1073741824 swap=nil hugepages=1 blockio=false devices=1", "blockio slow", "rdt gold"}
	if !slices.Equal(r.calls, want) {
		t.Errorf("calls %q, want %q (an update keeps its swap: none)", r.calls, want)
	}
	for _, hook := range []string{"check", "blockio", "rdt"} {
		r := &recorder{failAt: hook}
		spec := sampleSpec()
		before := cloneSpec(spec)
		if err := r.applier().ApplyResources(spec, res); !errors.Is(err, errHook) {
			t.Errorf("%s: error %v", hook, err)
		}
		if !reflect.DeepEqual(spec, before) {
			t.Errorf("failed %s changed the spec", hook)
		}
	}
}

// TestHooksNotCalled: a hook runs only for what it is about, as in the
// reference, and no hook runs for an adjustment that fails its checks.
func TestHooksNotCalled(t *testing.T) {
	for name, tc := range map[string]struct {
		adj  *api.ContainerAdjustment
		want []string
	}{
		"nil":                 {nil, nil},
		"empty: filter only":  {&api.ContainerAdjustment{}, []string{"filter map[]"}},
		"nameless CDI device": {&api.ContainerAdjustment{CDIDevices: []*api.CDIDevice{{}}}, []string{"filter map[]"}},
		"invalid value": {&api.ContainerAdjustment{
			Annotations: map[string]string{"a": "1"},
			Linux:       &api.LinuxContainerAdjustment{OomScoreAdj: &api.OptionalInt{Value: 5000}},
		}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{}
			spec := sampleSpec()
			err := r.applier().Apply(spec, tc.adj)
			if (err != nil) != (name == "invalid value") {
				t.Errorf("error %v", err)
			}
			if !slices.Equal(r.calls, tc.want) {
				t.Errorf("calls %q, want %q", r.calls, tc.want)
			}
			sameJSON(t, spec, sampleSpec())
		})
	}
}

// TestClassesClearWithoutCall: the class "" clears block I/O and RDT
// settings without asking the resolvers.
func TestClassesClearWithoutCall(t *testing.T) {
	r := &recorder{}
	spec := sampleSpec()
	spec.Linux.Resources.BlockIO = &rspec.LinuxBlockIO{Weight: ptr[uint16](5)}
	spec.Linux.IntelRdt = &rspec.LinuxIntelRdt{ClosID: "old"}
	err := r.applier().Apply(spec, resAdj(&api.LinuxResources{
		BlockioClass: &api.OptionalString{}, RdtClass: &api.OptionalString{},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Linux.Resources.BlockIO != nil || spec.Linux.IntelRdt != nil {
		t.Errorf("not cleared: %s", specJSON(t, spec.Linux))
	}
	if slices.ContainsFunc(r.calls, func(c string) bool { return strings.HasPrefix(c, "blockio") || strings.HasPrefix(c, "rdt") }) {
		t.Errorf("resolver called for the empty class: %q", r.calls)
	}
}

// TestFilterResultChecked: what the filter returns is checked like any
// annotation of a plugin.
func TestFilterResultChecked(t *testing.T) {
	a := Applier{AnnotationFilter: func(map[string]string) (map[string]string, error) {
		return map[string]string{"-": ""}, nil
	}}
	spec := sampleSpec()
	err := a.Apply(spec, &api.ContainerAdjustment{Annotations: map[string]string{"a": "1"}})
	if !errors.Is(err, ErrInvalidAdjustment) || !strings.HasPrefix(err.Error(), "annotation filter result: ") {
		t.Errorf("error = %v", err)
	}
	sameJSON(t, spec, sampleSpec())
}

// TestMemoryDefaults: the reference's defaults for a CreateContainer
// adjustment's memory limit.
func TestMemoryDefaults(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Linux.Resources.Memory }
	withSwap := func() *rspec.Spec {
		s := sampleSpec()
		s.Linux.Resources.Memory.Swap = ptr[int64](512 << 20)
		return s
	}
	mem := func(limit, swap *int64) *rspec.LinuxMemory { return &rspec.LinuxMemory{Limit: limit, Swap: swap} }
	runApplyCases(t, get, []applyCase{{
		name:  "a new limit sets swap to it",
		start: withSwap,
		adj:   resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1 << 30}}}),
		want:  mem(ptr[int64](1<<30), ptr[int64](1<<30)),
	}, {
		name:  "unlimited too",
		start: withSwap,
		adj:   resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: -1}}}),
		want:  mem(ptr[int64](-1), ptr[int64](-1)),
	}, {
		name:  "an explicit swap wins",
		start: withSwap,
		adj:   resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1 << 30}, Swap: &api.OptionalInt64{Value: 2 << 30}}}),
		want:  mem(ptr[int64](1<<30), ptr[int64](2<<30)),
	}, {
		name:  "a zero limit changes nothing",
		start: withSwap,
		adj:   resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{}}}),
		want:  mem(ptr[int64](256<<20), ptr[int64](512<<20)),
	}, {
		name:  "no limit, no swap change",
		start: withSwap,
		adj:   resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Reservation: &api.OptionalInt64{Value: 1}}}),
		want:  &rspec.LinuxMemory{Limit: ptr[int64](256 << 20), Swap: ptr[int64](512 << 20), Reservation: ptr[int64](1)},
	}})
}
