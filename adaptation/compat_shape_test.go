// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// TestCreateContainerResponseShapedLikeReference: runtime code written
// against the reference may reach into the adjustment's sections without
// checking them for nil, since the reference always returns them. With no
// plugin, and with one that sets only a memory limit, those reads work and
// what a plugin set is kept.
func TestCreateContainerResponseShapedLikeReference(t *testing.T) {
	for _, tt := range []struct {
		name    string
		plugins []adaptation.BuiltinPlugin
		limit   int64
	}{
		{name: "no plugin"},
		{name: "a plugin that sets a memory limit", limit: 64 << 20,
			plugins: []adaptation.BuiltinPlugin{{Index: "10", Name: "memcap", Handler: &memCapper{name: "memcap"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, adaptation.WithBuiltinPlugins(tt.plugins...))
			e.start()
			pod := testPod("p")
			must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
			rsp, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c", pod)})
			if err != nil {
				t.Fatal(err)
			}
			adj := rsp.Adjust
			// Unchecked, as such runtime code reads them.
			if got := adj.Linux.Resources.Memory.Limit.GetValue(); got != tt.limit {
				t.Errorf("memory limit %d, want %d", got, tt.limit)
			}
			_ = adj.Linux.Resources.Cpu.Shares
			_ = len(adj.Hooks.Prestart)
			adj.Annotations["runtime.example/x"] = "y"
			adj.Linux.Resources.Unified["memory.high"] = "1"
			adj.Linux.Sysctl["net.core.somaxconn"] = "1"
			adj.Linux.NetDevices["eth9"] = &api.LinuxNetDevice{Name: "x"}
		})
	}
}
