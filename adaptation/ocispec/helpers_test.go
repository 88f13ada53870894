// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// sampleSpec is a container spec as a CRI runtime generates it.
func sampleSpec() *rspec.Spec {
	return &rspec.Spec{
		Version: "1.2.0",
		Process: &rspec.Process{
			User:        rspec.User{UID: 1000, GID: 1000, AdditionalGids: []uint32{10}},
			Args:        []string{"/bin/sh", "-c", "sleep inf"},
			Env:         []string{"PATH=/usr/bin:/bin", "HOSTNAME=ctr0", "TERM=xterm"},
			Cwd:         "/",
			Rlimits:     []rspec.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: 1024, Soft: 1024}},
			OOMScoreAdj: ptr(100),
		},
		Root:     &rspec.Root{Path: "rootfs"},
		Hostname: "ctr0",
		Mounts: []rspec.Mount{
			{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
			{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
			{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec"}},
			{Destination: "/dev/shm", Type: "bind", Source: "/run/shm/pod0", Options: []string{"rbind", "rw"}},
			{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
			{Destination: "/sys/fs/cgroup", Type: "cgroup", Source: "cgroup", Options: []string{"nosuid", "noexec", "nodev", "relatime", "ro"}},
			{Destination: "/etc/hosts", Type: "bind", Source: "/var/lib/pods/pod0/hosts", Options: []string{"rbind", "rprivate", "rw"}},
			{Destination: "/data", Type: "bind", Source: "/srv/data", Options: []string{"rbind", "rprivate", "rw"}},
		},
		Annotations: map[string]string{
			"io.kubernetes.cri.container-type": "container",
			"io.kubernetes.cri.sandbox-id":     "pod0",
		},
		Linux: &rspec.Linux{
			Resources: &rspec.LinuxResources{
				Devices: []rspec.LinuxDeviceCgroup{{Allow: false, Access: "rwm"}},
				Memory:  &rspec.LinuxMemory{Limit: ptr[int64](256 << 20)},
				CPU:     &rspec.LinuxCPU{Shares: ptr[uint64](1024), Quota: ptr[int64](50000), Period: ptr[uint64](100000)},
			},
			CgroupsPath: "kubepods-pod0.slice:cri-containerd:ctr0",
			Namespaces: []rspec.LinuxNamespace{
				{Type: rspec.PIDNamespace},
				{Type: rspec.IPCNamespace, Path: "/proc/42/ns/ipc"},
				{Type: rspec.UTSNamespace, Path: "/proc/42/ns/uts"},
				{Type: rspec.MountNamespace},
				{Type: rspec.NetworkNamespace, Path: "/var/run/netns/pod0"},
			},
			Sysctl:      map[string]string{"net.ipv4.ip_unprivileged_port_start": "0"},
			MaskedPaths: []string{"/proc/kcore", "/sys/firmware"},
		},
	}
}

// copySpec deep-copies a spec through JSON, which is lossless for what the
// tests use.
func copySpec(t testing.TB, s *rspec.Spec) *rspec.Spec {
	t.Helper()
	var c rspec.Spec
	if err := json.Unmarshal(specJSON(t, s), &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func specJSON(t testing.TB, s any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSON compares through JSON, so that nil and empty lists are alike.
func sameJSON(t *testing.T, got, want any) {
	t.Helper()
	g, w := specJSON(t, got), specJSON(t, want)
	if string(g) != string(w) {
		t.Errorf("got\n%s\nwant\n%s\ndiff:\n%s", g, w, lineDiff(string(w), string(g)))
	}
}

// lineDiff lists the lines only in want (-) or only in got (+); enough to
// spot a wrong field.
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var out []string
	for l, n := range count {
		switch {
		case n > 0:
			out = append(out, "- "+l)
		case n < 0:
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// applyCase is one row of a per-field table: apply adj to a spec (the sample
// unless start is given), then compare get(spec) with want, or expect an
// ErrInvalidAdjustment mentioning err and an unchanged spec.
type applyCase struct {
	name  string
	start func() *rspec.Spec
	adj   *api.ContainerAdjustment
	get   func(*rspec.Spec) any
	want  any
	err   string
}

func runApplyCases(t *testing.T, get func(*rspec.Spec) any, cases []applyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := sampleSpec()
			if tc.start != nil {
				spec = tc.start()
			}
			before := specJSON(t, spec)
			err := Apply(spec, tc.adj)
			if tc.err != "" {
				if !errors.Is(err, ErrInvalidAdjustment) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want ErrInvalidAdjustment with %q", err, tc.err)
				}
				if after := specJSON(t, spec); string(after) != string(before) {
					t.Fatalf("failed Apply changed the spec:\n%s", lineDiff(string(before), string(after)))
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			g := get
			if tc.get != nil {
				g = tc.get
			}
			if got := g(spec); !reflect.DeepEqual(got, tc.want) {
				sameJSON(t, got, tc.want)
				if !t.Failed() {
					t.Errorf("got %#v\nwant %#v", got, tc.want)
				}
			}
		})
	}
}

func linuxAdj(l *api.LinuxContainerAdjustment) *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Linux: l}
}

func emptySpec() *rspec.Spec { return &rspec.Spec{} }
