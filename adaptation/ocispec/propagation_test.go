// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// fakeHost stands in for the host's mount table: source → propagation.
// Sources it does not know fail the lookup.
func fakeHost(t *testing.T, table map[string]string) *[]string {
	t.Helper()
	var asked []string
	saved := hostPropagation
	hostPropagation = func(path string) (string, error) {
		asked = append(asked, path)
		mode, ok := table[path]
		if !ok {
			return "", errors.New("no such mount")
		}
		return mode, nil
	}
	t.Cleanup(func() { hostPropagation = saved })
	return &asked
}

func bindMount(dst, src string, opts ...string) *api.Mount {
	return &api.Mount{Destination: dst, Source: src, Type: "bind", Options: append([]string{"rbind"}, opts...)}
}

func TestMountPropagation(t *testing.T) {
	host := map[string]string{"/shared": "rshared", "/slave": "rslave", "/private": ""}
	for _, tt := range []struct {
		name     string
		root     string // the spec's rootfs propagation before
		mounts   []*api.Mount
		wantRoot string
		wantErr  string // empty: success
		asked    []string
	}{
		{name: "rshared on a shared source makes the root shared",
			mounts: []*api.Mount{bindMount("/m", "/shared", "rshared")}, wantRoot: "rshared", asked: []string{"/shared"}},
		{name: "rshared replaces a slave root",
			root: "rslave", mounts: []*api.Mount{bindMount("/m", "/shared", "rshared")}, wantRoot: "rshared", asked: []string{"/shared"}},
		{name: "rslave on a slave source makes a private root a slave",
			root: "rprivate", mounts: []*api.Mount{bindMount("/m", "/slave", "rslave")}, wantRoot: "rslave", asked: []string{"/slave"}},
		{name: "rslave on a shared source keeps a shared root",
			root: "rshared", mounts: []*api.Mount{bindMount("/m", "/shared", "rslave")}, wantRoot: "rshared", asked: []string{"/shared"}},
		{name: "rshared on a slave source fails",
			mounts:  []*api.Mount{bindMount("/m", "/slave", "rshared")},
			wantErr: `mount "/m": unsupported mount propagation: host path "/slave" is rslave, not rshared`},
		{name: "rslave on a private source fails",
			mounts:  []*api.Mount{bindMount("/m", "/private", "rslave")},
			wantErr: `host path "/private" is rprivate, not rshared or rslave`},
		{name: "a source whose mount cannot be read fails",
			mounts:  []*api.Mount{bindMount("/m", "/gone", "rshared")},
			wantErr: `reading the propagation of host path "/gone": no such mount`},
		{name: "the last propagation option wins",
			mounts: []*api.Mount{bindMount("/m", "/private", "rshared", "ro", "rprivate")}},
		{name: "each mount is judged by its own options",
			mounts:   []*api.Mount{bindMount("/a", "/shared", "rshared"), bindMount("/b", "/private")},
			wantRoot: "rshared", asked: []string{"/shared"}},
		{name: "removals and mounts without propagation leave the host alone",
			root:   "rprivate",
			mounts: []*api.Mount{{Destination: "-/data"}, bindMount("/m", "/private", "ro")}, wantRoot: "rprivate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			asked := fakeHost(t, host)
			spec := sampleSpec()
			spec.Linux.RootfsPropagation = tt.root
			before := copySpec(t, spec)
			err := Apply(spec, &api.ContainerAdjustment{Mounts: tt.mounts})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Apply: %v, want an error with %q", err, tt.wantErr)
				}
				if errors.Is(err, ErrInvalidAdjustment) || !errors.Is(err, ErrMountPropagation) {
					t.Errorf("%v: wraps the wrong sentinel", err)
				}
				if !reflect.DeepEqual(spec, before) {
					t.Error("a failed Apply changed the spec")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := spec.Linux.RootfsPropagation; got != tt.wantRoot {
				t.Errorf("rootfs propagation %q, want %q", got, tt.wantRoot)
			}
			if !slices.Equal(*asked, tt.asked) {
				t.Errorf("host asked about %q, want %q", *asked, tt.asked)
			}
		})
	}
}

func TestMountPropagationCreatesTheLinuxSection(t *testing.T) {
	fakeHost(t, map[string]string{"/shared": "rshared"})
	spec := &rspec.Spec{}
	if err := Apply(spec, &api.ContainerAdjustment{Mounts: []*api.Mount{bindMount("/m", "/shared", "rshared")}}); err != nil {
		t.Fatal(err)
	}
	if spec.Linux == nil || spec.Linux.RootfsPropagation != "rshared" {
		t.Errorf("linux section %+v, want rootfs propagation rshared", spec.Linux)
	}
}
