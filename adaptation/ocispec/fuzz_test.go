// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// FuzzApply decodes an adjustment from arbitrary bytes and applies it to the
// sample spec and to an empty one. Whatever the input: no panic, errors wrap
// ErrInvalidAdjustment (or ErrMountPropagation, from a host whose mounts
// under /shared are shared and the others private) and leave the spec as it
// was (also with runtime hooks, whichever fails), the result still encodes
// as JSON, and reading it back for plugins still works.
func FuzzApply(f *testing.F) {
	saved := hostPropagation
	hostPropagation = func(path string) (string, error) {
		if strings.HasPrefix(path, "/shared") {
			return propagationShared, nil
		}
		return "", nil
	}
	f.Cleanup(func() { hostPropagation = saved })
	f.Fuzz(func(t *testing.T, data []byte) {
		adj := &api.ContainerAdjustment{}
		if proto.Unmarshal(data, adj) != nil {
			return
		}
		for _, spec := range []*rspec.Spec{sampleSpec(), {}} {
			before := fuzzJSON(t, spec)
			if err := Apply(spec, adj); err != nil {
				if !errors.Is(err, ErrInvalidAdjustment) && !errors.Is(err, ErrMountPropagation) {
					t.Fatalf("error wraps no sentinel: %v", err)
				}
				if after := fuzzJSON(t, spec); after != before {
					t.Fatalf("failed Apply changed the spec: %v", err)
				}
			}
			// With hooks that edit the spec, one of them failing (chosen by
			// the input), or none: a failure leaves the spec deeply equal.
			hooked := cloneSpec(spec)
			r := &recorder{failAt: []string{"", "filter", "cdi", "check", "blockio", "rdt"}[len(data)%6]}
			if err := r.applier().Apply(hooked, adj); err != nil && !reflect.DeepEqual(hooked, spec) {
				t.Fatalf("failed Apply with hooks changed the spec: %v", err)
			}
			if err := ApplyResources(spec, adj.GetLinux().GetResources()); err != nil && !errors.Is(err, ErrInvalidAdjustment) {
				t.Fatalf("ApplyResources error wraps no sentinel: %v", err)
			}
			fuzzJSON(t, spec)
			if _, err := proto.Marshal(ContainerFromSpec(spec)); err != nil {
				t.Fatalf("container from spec does not encode: %v", err)
			}
		}
	})
}

func fuzzJSON(t *testing.T, s *rspec.Spec) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("spec does not encode: %v", err)
	}
	return string(b)
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzApply when
// NRIKIT_WRITE_FUZZ_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("NRIKIT_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set NRIKIT_WRITE_FUZZ_SEEDS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzApply")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, adj := range fuzzSeeds() {
		b, err := proto.Marshal(adj)
		if err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fuzzSeeds() map[string]*api.ContainerAdjustment {
	replies := mergedReplies()
	return map[string]*api.ContainerAdjustment{
		"plugin-a": replies["10-a"].Adjust,
		"plugin-b": replies["20-b"].Adjust,
		"markers": {
			Annotations: map[string]string{"-x": "", "x": "1"},
			Mounts:      []*api.Mount{{Destination: "-/data"}, {Destination: "/data/", Source: "/s"}},
			Env:         []*api.KeyValue{{Key: "-PATH"}, {Key: "A", Value: "1"}},
			Linux: &api.LinuxContainerAdjustment{
				Devices:    []*api.LinuxDevice{{Path: "-/dev/x"}, {Path: "/dev/y", Type: "b", Major: 8}},
				Namespaces: []*api.LinuxNamespace{{Type: "-network"}, {Type: "user"}},
				Sysctl:     map[string]string{"-a": "", "b": "2"},
				NetDevices: map[string]*api.LinuxNetDevice{"-eth0": {}, "eth1": {Name: "n"}},
			},
		},
		"invalid": {
			Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_CORE", Soft: 2, Hard: 1}},
			Linux: &api.LinuxContainerAdjustment{
				Scheduler:     &api.LinuxScheduler{Policy: 9},
				SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ALLOW", Syscalls: []*api.LinuxSyscall{{Names: []string{"x"}, Action: "SCMP_ACT_LOG", Args: []*api.LinuxSeccompArg{{Index: 7}}}}},
			},
		},
		"rdt-hooks-args": {
			Args:  []string{"", "/app"},
			Hooks: &api.Hooks{Prestart: []*api.Hook{{Path: "/h", Timeout: &api.OptionalInt{Value: 1}}}},
			Linux: &api.LinuxContainerAdjustment{
				Rdt:          &api.LinuxRdt{Remove: true, Schemata: &api.OptionalRepeatedString{Value: []string{"L3:0=1"}}},
				Resources:    &api.LinuxResources{RdtClass: &api.OptionalString{Value: "c"}, Devices: []*api.LinuxDeviceCgroup{{Type: "c", Access: "rw"}}},
				MemoryPolicy: &api.LinuxMemoryPolicy{Mode: api.MpolMode_MPOL_INTERLEAVE, Flags: []api.MpolFlag{api.MpolFlag_MPOL_F_RELATIVE_NODES}},
			},
		},
	}
}
