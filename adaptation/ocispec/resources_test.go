// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

func resAdj(r *api.LinuxResources) *api.ContainerAdjustment {
	return linuxAdj(&api.LinuxContainerAdjustment{Resources: r})
}

func TestResources(t *testing.T) {
	get := func(s *rspec.Spec) any { return s.Linux.Resources }
	base := func() *rspec.LinuxResources { return sampleSpec().Linux.Resources }
	with := func(f func(r *rspec.LinuxResources)) *rspec.LinuxResources {
		r := base()
		f(r)
		return r
	}
	withHuge := func() *rspec.Spec {
		s := sampleSpec()
		s.Linux.Resources.HugepageLimits = []rspec.LinuxHugepageLimit{{Pagesize: "2MB", Limit: 1}, {Pagesize: "1GB", Limit: 2}}
		s.Linux.Resources.Unified = map[string]string{"memory.high": "1"}
		return s
	}
	runApplyCases(t, get, []applyCase{{
		name: "memory",
		adj: resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{
			Limit: &api.OptionalInt64{Value: 1 << 30}, Reservation: &api.OptionalInt64{Value: 2}, Swap: &api.OptionalInt64{Value: -1},
			Kernel: &api.OptionalInt64{Value: 4}, KernelTcp: &api.OptionalInt64{Value: 5}, Swappiness: &api.OptionalUInt64{Value: 60},
			DisableOomKiller: &api.OptionalBool{Value: true}, UseHierarchy: &api.OptionalBool{},
		}}),
		want: with(func(r *rspec.LinuxResources) {
			r.Memory = &rspec.LinuxMemory{
				Limit: ptr[int64](1 << 30), Reservation: ptr[int64](2), Swap: ptr[int64](-1), Kernel: ptr[int64](4),
				KernelTCP: ptr[int64](5), Swappiness: ptr[uint64](60), DisableOOMKiller: ptr(true), UseHierarchy: ptr(false),
			}
		}),
	}, {
		name: "cpu keeps what is unset",
		adj: resAdj(&api.LinuxResources{Cpu: &api.LinuxCPU{
			Quota: &api.OptionalInt64{Value: -1}, RealtimeRuntime: &api.OptionalInt64{Value: 1},
			RealtimePeriod: &api.OptionalUInt64{Value: 2}, Cpus: "0-3", Mems: "0",
		}}),
		want: with(func(r *rspec.LinuxResources) {
			r.CPU = &rspec.LinuxCPU{
				Shares: ptr[uint64](1024), Quota: ptr[int64](-1), Period: ptr[uint64](100000),
				RealtimeRuntime: ptr[int64](1), RealtimePeriod: ptr[uint64](2), Cpus: "0-3", Mems: "0",
			}
		}),
	}, {
		name:  "hugepages by page size, unified by key, pids",
		start: withHuge,
		adj: resAdj(&api.LinuxResources{
			HugepageLimits: []*api.HugepageLimit{{PageSize: "1GB", Limit: 9}, {PageSize: "64KB", Limit: 3}},
			Unified:        map[string]string{"memory.high": "2", "io.weight": "50"},
			Pids:           &api.LinuxPids{Limit: 100},
		}),
		want: with(func(r *rspec.LinuxResources) {
			r.HugepageLimits = []rspec.LinuxHugepageLimit{{Pagesize: "2MB", Limit: 1}, {Pagesize: "1GB", Limit: 9}, {Pagesize: "64KB", Limit: 3}}
			r.Unified = map[string]string{"memory.high": "2", "io.weight": "50"}
			r.Pids = &rspec.LinuxPids{Limit: ptr[int64](100)}
		}),
	}, {
		name: "device rules appended",
		adj: resAdj(&api.LinuxResources{Devices: []*api.LinuxDeviceCgroup{
			{Allow: true, Type: "c", Major: &api.OptionalInt64{Value: 1}, Access: "rw"},
			{Allow: false, Type: "a", Access: "m"},
		}}),
		want: with(func(r *rspec.LinuxResources) {
			r.Devices = append(r.Devices,
				rspec.LinuxDeviceCgroup{Allow: true, Type: "c", Major: ptr[int64](1), Access: "rw"},
				rspec.LinuxDeviceCgroup{Type: "a", Access: "m"})
		}),
	}, {
		name: "block I/O class is left to the runtime",
		adj:  resAdj(&api.LinuxResources{BlockioClass: &api.OptionalString{Value: "slow"}}),
		want: base(),
	}, {
		name: "rdt class is the clos id",
		adj:  resAdj(&api.LinuxResources{RdtClass: &api.OptionalString{Value: "gold"}}),
		get:  func(s *rspec.Spec) any { return s.Linux.IntelRdt },
		want: &rspec.LinuxIntelRdt{ClosID: "gold"},
	}, {
		name:  "nil linux",
		start: emptySpec,
		adj:   resAdj(&api.LinuxResources{Pids: &api.LinuxPids{Limit: 5}}),
		want:  &rspec.LinuxResources{Pids: &rspec.LinuxPids{Limit: ptr[int64](5)}},
	}, {
		name: "swappiness above 100",
		adj:  resAdj(&api.LinuxResources{Memory: &api.LinuxMemory{Swappiness: &api.OptionalUInt64{Value: 101}}}),
		err:  "memory.swappiness: 101",
	}, {
		name: "hugepage without page size",
		adj:  resAdj(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{Limit: 1}}}),
		err:  "hugepage_limits: page size \"\"",
	}, {
		name: "unified without name",
		adj:  resAdj(&api.LinuxResources{Unified: map[string]string{"": "1"}}),
		err:  "unified[\"\"]",
	}, {
		name: "device rule type",
		adj:  resAdj(&api.LinuxResources{Devices: []*api.LinuxDeviceCgroup{{Type: "p"}}}),
		err:  `rule type "p"`,
	}, {
		name: "device rule access",
		adj:  resAdj(&api.LinuxResources{Devices: []*api.LinuxDeviceCgroup{{Access: "rx"}}}),
		err:  `access "rx"`,
	}, {
		name: "nil device rule",
		adj:  resAdj(&api.LinuxResources{Devices: []*api.LinuxDeviceCgroup{nil}}),
		err:  "nil cgroup device rule",
	}})
}

func TestApplyResources(t *testing.T) {
	if err := ApplyResources(nil, nil); err != nil {
		t.Errorf("nil resources: %v", err)
	}
	if err := ApplyResources(nil, &api.LinuxResources{}); err == nil || errors.Is(err, ErrInvalidAdjustment) {
		t.Errorf("nil spec: %v", err)
	}
	spec := sampleSpec()
	err := ApplyResources(spec, &api.LinuxResources{
		Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1}},
		Cpu:    &api.LinuxCPU{Cpus: "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := sampleSpec()
	want.Linux.Resources.Memory.Limit = ptr[int64](1)
	want.Linux.Resources.CPU.Cpus = "1"
	sameJSON(t, spec, want)

	before := specJSON(t, spec)
	err = ApplyResources(spec, &api.LinuxResources{Pids: &api.LinuxPids{Limit: 1}, Devices: []*api.LinuxDeviceCgroup{{Type: "x"}}})
	if !errors.Is(err, ErrInvalidAdjustment) || string(specJSON(t, spec)) != string(before) {
		t.Errorf("invalid update: err %v, spec changed: %v", err, string(specJSON(t, spec)) != string(before))
	}
}

func TestResolvers(t *testing.T) {
	a := Applier{
		BlockIOClass: func(class string) (*rspec.LinuxBlockIO, error) {
			if class != "slow" {
				return nil, errors.New("no such class")
			}
			return &rspec.LinuxBlockIO{Weight: ptr[uint16](10)}, nil
		},
		RDTClass: func(class string) (*rspec.LinuxIntelRdt, error) {
			return &rspec.LinuxIntelRdt{ClosID: "resolved-" + class, Schemata: []string{"L3:0=1"}}, nil
		},
	}
	spec := sampleSpec()
	res := &api.LinuxResources{
		BlockioClass: &api.OptionalString{Value: "slow"},
		RdtClass:     &api.OptionalString{Value: "gold"},
	}
	if err := a.ApplyResources(spec, res); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, []any{spec.Linux.Resources.BlockIO, spec.Linux.IntelRdt}, []any{
		&rspec.LinuxBlockIO{Weight: ptr[uint16](10)},
		&rspec.LinuxIntelRdt{ClosID: "resolved-gold", Schemata: []string{"L3:0=1"}},
	})

	spec = sampleSpec()
	before := specJSON(t, spec)
	res.BlockioClass.Value = "fast"
	err := a.Apply(spec, resAdj(res))
	if err == nil || err.Error() != `block I/O class "fast": no such class` {
		t.Errorf("resolver error = %v", err)
	}
	if string(specJSON(t, spec)) != string(before) {
		t.Error("failed resolver changed the spec")
	}
}

func TestResourcesConversionRoundTrip(t *testing.T) {
	full := &api.LinuxResources{
		Memory: &api.LinuxMemory{
			Limit: &api.OptionalInt64{Value: 1}, Reservation: &api.OptionalInt64{Value: 2}, Swap: &api.OptionalInt64{Value: 3},
			Kernel: &api.OptionalInt64{Value: 4}, KernelTcp: &api.OptionalInt64{Value: 5}, Swappiness: &api.OptionalUInt64{Value: 6},
			DisableOomKiller: &api.OptionalBool{Value: true}, UseHierarchy: &api.OptionalBool{Value: false},
		},
		Cpu: &api.LinuxCPU{
			Shares: &api.OptionalUInt64{Value: 1}, Quota: &api.OptionalInt64{Value: 2}, Period: &api.OptionalUInt64{Value: 3},
			RealtimeRuntime: &api.OptionalInt64{Value: 4}, RealtimePeriod: &api.OptionalUInt64{Value: 5}, Cpus: "0", Mems: "1",
		},
		HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 7}},
		Unified:        map[string]string{"a": "b"},
		Devices:        []*api.LinuxDeviceCgroup{{Allow: true, Type: "b", Major: &api.OptionalInt64{Value: 8}, Minor: &api.OptionalInt64{Value: 0}, Access: "r"}},
		Pids:           &api.LinuxPids{Limit: 9},
	}
	for _, r := range []*api.LinuxResources{full, {}, {Memory: &api.LinuxMemory{}}, nil} {
		if got := FromOCIResources(ToOCIResources(r)); !proto.Equal(got, r) {
			t.Errorf("round trip of %v gave %v", r, got)
		}
	}
	if ToOCIResources(&api.LinuxResources{BlockioClass: &api.OptionalString{Value: "x"}}).BlockIO != nil {
		t.Error("block I/O class converted")
	}
}
