// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

func TestApplyNil(t *testing.T) {
	if err := Apply(nil, nil); err != nil {
		t.Errorf("nil spec and adjustment: %v", err)
	}
	spec := sampleSpec()
	if err := Apply(spec, nil); err != nil {
		t.Errorf("nil adjustment: %v", err)
	}
	err := Apply(nil, &api.ContainerAdjustment{})
	if err == nil || errors.Is(err, ErrInvalidAdjustment) {
		t.Errorf("nil spec: %v, want an error that blames no plugin", err)
	}
	for name, adj := range map[string]*api.ContainerAdjustment{
		"empty":       {},
		"empty parts": {Hooks: &api.Hooks{}, Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{}}},
		"cdi only":    {CDIDevices: []*api.CDIDevice{{Name: "vendor.com/gpu=0"}}},
	} {
		s := sampleSpec()
		if err := Apply(s, adj); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameJSON(t, s, sampleSpec())
	}
	// Removals and empty parts create no sections in a spec without them.
	s := emptySpec()
	err = Apply(s, &api.ContainerAdjustment{
		Annotations: map[string]string{"-a": ""},
		Env:         []*api.KeyValue{{Key: "-A"}},
		Mounts:      []*api.Mount{{Destination: "-/m"}},
		Linux: &api.LinuxContainerAdjustment{
			Devices:    []*api.LinuxDevice{{Path: "-/dev/x"}},
			Namespaces: []*api.LinuxNamespace{{Type: "-ipc"}},
			Sysctl:     map[string]string{"-a": ""},
			NetDevices: map[string]*api.LinuxNetDevice{"-eth0": nil},
			Resources:  &api.LinuxResources{BlockioClass: &api.OptionalString{Value: "x"}},
			Rdt:        &api.LinuxRdt{Remove: true},
			IoPriority: &api.LinuxIOPriority{},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, emptySpec()) {
		t.Errorf("empty spec became %s", specJSON(t, s))
	}
	if err := ApplyResources(s, &api.LinuxResources{}); err != nil || !reflect.DeepEqual(s, emptySpec()) {
		t.Errorf("empty resources: %v, spec %s", err, specJSON(t, s))
	}
}

// TestApplyAllOrNothing: a bad value late in the adjustment leaves the spec
// as it was, including the fields before it.
func TestApplyAllOrNothing(t *testing.T) {
	adj := &api.ContainerAdjustment{
		Annotations: map[string]string{"a": "1", "-io.kubernetes.cri.sandbox-id": ""},
		Mounts:      []*api.Mount{{Destination: "-/data"}, {Destination: "/m", Source: "/s"}},
		Env:         []*api.KeyValue{{Key: "-PATH"}},
		Args:        []string{"/x"},
		Hooks:       &api.Hooks{Poststop: []*api.Hook{{Path: "/h"}}},
		Linux: &api.LinuxContainerAdjustment{
			Devices:      []*api.LinuxDevice{{Path: "/dev/x", Type: "c", Major: 1, Minor: 1}},
			Resources:    &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1}}},
			Namespaces:   []*api.LinuxNamespace{{Type: "-network"}},
			Rdt:          &api.LinuxRdt{Remove: true},
			MemoryPolicy: &api.LinuxMemoryPolicy{Mode: 99},
		},
	}
	spec := sampleSpec()
	err := Apply(spec, adj)
	if !errors.Is(err, ErrInvalidAdjustment) {
		t.Fatalf("error = %v", err)
	}
	sameJSON(t, spec, sampleSpec())

	adj.Linux.MemoryPolicy = nil
	adj.Rlimits = []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 1, Soft: 2}}
	if err := Apply(spec, adj); !errors.Is(err, ErrInvalidAdjustment) {
		t.Fatalf("error = %v", err)
	}
	sameJSON(t, spec, sampleSpec())
}

// TestApplyDoesNotAlias: the spec keeps no slice of the adjustment, which
// the caller may reuse or which may be shared with the request sent to
// plugins.
func TestApplyDoesNotAlias(t *testing.T) {
	adj := &api.ContainerAdjustment{
		Args:  []string{"/a", "b"},
		Hooks: &api.Hooks{Poststop: []*api.Hook{{Path: "/h", Args: []string{"x"}, Env: []string{"E=1"}}}},
		Linux: &api.LinuxContainerAdjustment{
			Rdt: &api.LinuxRdt{Schemata: &api.OptionalRepeatedString{Value: []string{"L3:0=1"}}},
			SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ALLOW", Syscalls: []*api.LinuxSyscall{
				{Names: []string{"read"}, Action: "SCMP_ACT_LOG"},
			}},
		},
	}
	spec := sampleSpec()
	if err := Apply(spec, adj); err != nil {
		t.Fatal(err)
	}
	want := copySpec(t, spec)
	adj.Args[0] = "changed"
	adj.Hooks.Poststop[0].Args[0] = "changed"
	adj.Hooks.Poststop[0].Env[0] = "changed"
	adj.Linux.Rdt.Schemata.Value[0] = "changed"
	adj.Linux.SeccompPolicy.Syscalls[0].Names[0] = "changed"
	sameJSON(t, spec, want)
}

func TestCDIDevices(t *testing.T) {
	adj := &api.ContainerAdjustment{CDIDevices: []*api.CDIDevice{{Name: "vendor.com/gpu=0"}, nil, {}, {Name: "vendor.com/gpu=1"}}}
	if got := CDIDevices(adj); !slices.Equal(got, []string{"vendor.com/gpu=0", "vendor.com/gpu=1"}) {
		t.Errorf("CDIDevices = %q", got)
	}
	if got := CDIDevices(nil); got != nil {
		t.Errorf("CDIDevices(nil) = %q", got)
	}
}

// TestErrorsWrapSentinel lists one impossible value per kind and checks each
// fails with ErrInvalidAdjustment, without panicking.
func TestErrorsWrapSentinel(t *testing.T) {
	bad := map[string]*api.ContainerAdjustment{
		"device type":      linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{{Path: "/dev/x", Type: "x"}}}),
		"namespace type":   linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{{Type: "bogus"}}}),
		"rlimit":           {Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_FOO"}}},
		"scheduler policy": linuxAdj(&api.LinuxContainerAdjustment{Scheduler: &api.LinuxScheduler{Policy: 8}}),
		"io class":         linuxAdj(&api.LinuxContainerAdjustment{IoPriority: &api.LinuxIOPriority{Class: -1}}),
		"mempolicy mode":   linuxAdj(&api.LinuxContainerAdjustment{MemoryPolicy: &api.LinuxMemoryPolicy{Mode: -3}}),
		"seccomp action":   linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "ALLOW"}}),
		"nil namespace":    linuxAdj(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{nil}}),
		"nil device":       linuxAdj(&api.LinuxContainerAdjustment{Devices: []*api.LinuxDevice{nil}}),
		"nil syscall":      linuxAdj(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_LOG", Syscalls: []*api.LinuxSyscall{nil}}}),
		"nil hugepage":     resAdj(&api.LinuxResources{HugepageLimits: []*api.HugepageLimit{nil}}),
	}
	for name, adj := range bad {
		for _, spec := range []*rspec.Spec{sampleSpec(), emptySpec()} {
			if err := Apply(spec, adj); !errors.Is(err, ErrInvalidAdjustment) {
				t.Errorf("%s: error = %v", name, err)
			}
		}
	}
}
