// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

func TestMounts(t *testing.T) {
	dests := func(s *rspec.Spec) any {
		var d []string
		for _, m := range s.Mounts {
			d = append(d, m.Destination+"="+m.Source)
		}
		return d
	}
	mount := func(dst, src string) *api.Mount {
		return &api.Mount{Destination: dst, Source: src, Type: "bind", Options: []string{"rbind"}}
	}
	small := func() *rspec.Spec {
		return &rspec.Spec{Mounts: []rspec.Mount{
			{Destination: "/proc", Source: "proc"},
			{Destination: "/data/sub", Source: "/s"},
			{Destination: "/x", Source: "/x1"},
			{Destination: "/x/", Source: "/x2"},
		}}
	}
	runApplyCases(t, dests, []applyCase{{
		name:  "add at its depth, before the mounts below it",
		start: small,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{mount("/data", "/d"), mount("/a/b/c", "/abc")}},
		want:  []string{"/proc=proc", "/x=/x1", "/x/=/x2", "/data=/d", "/data/sub=/s", "/a/b/c=/abc"},
	}, {
		name:  "replace the mounts at a cleaned destination",
		start: small,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{mount("/x//", "/new")}},
		want:  []string{"/proc=proc", "/x//=/new", "/data/sub=/s"},
	}, {
		name:  "remove",
		start: small,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{{Destination: "-/x"}, {Destination: "-/data/sub/"}}},
		want:  []string{"/proc=proc"},
	}, {
		name:  "removal keeps the order",
		start: small,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{{Destination: "-/proc"}}},
		want:  []string{"/data/sub=/s", "/x=/x1", "/x/=/x2"},
	}, {
		name:  "remove and add",
		start: small,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{{Destination: "-/x"}, mount("/x", "/new")}},
		want:  []string{"/proc=proc", "/x=/new", "/data/sub=/s"},
	}, {
		name:  "removing a missing mount",
		start: small,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{{Destination: "-/nope"}}},
		want:  []string{"/proc=proc", "/data/sub=/s", "/x=/x1", "/x/=/x2"},
	}, {
		name:  "nil list",
		start: emptySpec,
		adj:   &api.ContainerAdjustment{Mounts: []*api.Mount{{Destination: "-/nope"}, mount("/m", "/s")}},
		want:  []string{"/m=/s"},
	}, {
		name: "relative destination",
		adj:  &api.ContainerAdjustment{Mounts: []*api.Mount{mount("data", "/d")}},
		err:  `mount "data": invalid adjustment: destination is not absolute`,
	}, {
		name: "bare marker",
		adj:  &api.ContainerAdjustment{Mounts: []*api.Mount{{Destination: "-"}}},
		err:  "names nothing",
	}, {
		name: "nil mount",
		adj:  &api.ContainerAdjustment{Mounts: []*api.Mount{nil}},
		err:  "names nothing",
	}})

	t.Run("converted fields", func(t *testing.T) {
		s := emptySpec()
		m := &api.Mount{Destination: "/m", Type: "tmpfs", Source: "tmpfs", Options: []string{"size=1m"}}
		if err := Apply(s, &api.ContainerAdjustment{Mounts: []*api.Mount{m}}); err != nil {
			t.Fatal(err)
		}
		m.Options[0] = "changed"
		sameJSON(t, s.Mounts, []rspec.Mount{{Destination: "/m", Type: "tmpfs", Source: "tmpfs", Options: []string{"size=1m"}}})
	})
}
