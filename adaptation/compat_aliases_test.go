// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/proto"

	nri "github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// Calls as containerd's and CRI-O's glue make them through the reference's
// pkg/adaptation give what the api helpers give.
func TestAdaptationHelpersAreTheAPIs(t *testing.T) {
	limit := int64(1 << 30)
	shares := uint64(512)
	spec := &rspec.LinuxResources{
		Memory: &rspec.LinuxMemory{Limit: &limit},
		CPU:    &rspec.LinuxCPU{Shares: &shares, Cpus: "0-3"},
	}
	mounts := []rspec.Mount{{Destination: "/data", Source: "/srv", Type: "bind", Options: []string{"rbind"}}}
	for _, c := range []struct {
		name      string
		got, want proto.Message
	}{
		{"String", nri.String("x"), api.String("x")},
		{"Int", nri.Int(5), api.Int(5)},
		{"Int64", nri.Int64(&limit), api.Int64(&limit)},
		{"UInt64", nri.UInt64(shares), api.UInt64(shares)},
		{"Bool", nri.Bool(true), api.Bool(true)},
		{"RepeatedString", nri.RepeatedString([]string{"a"}), api.RepeatedString([]string{"a"})},
		{"FromOCILinuxResources", nri.FromOCILinuxResources(spec, nil), api.FromOCILinuxResources(spec, nil)},
		{"FromOCIMounts", &nri.ContainerAdjustment{Mounts: nri.FromOCIMounts(mounts)},
			&api.ContainerAdjustment{Mounts: api.FromOCIMounts(mounts)}},
	} {
		if !proto.Equal(c.got, c.want) {
			t.Errorf("%s: adaptation gives %v, api gives %v", c.name, c.got, c.want)
		}
	}
	if got := nri.FromOCILinuxResources(spec, nil).GetMemory().GetLimit().GetValue(); got != limit {
		t.Errorf("memory limit converted to %d, want %d", got, limit)
	}
	if key, ok := nri.IsMarkedForRemoval(nri.MarkForRemoval("k")); !ok || key != "k" {
		t.Errorf("removal marker round trip gave %q, %v", key, ok)
	}
	if got := nri.DupStringSlice([]string{"a", "b"}); len(got) != 2 || got[1] != "b" {
		t.Errorf("DupStringSlice gave %v", got)
	}
}
