// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// memCapper is an in-process plugin written the short way: it embeds
// api.PluginBase and implements only CreateContainer, with the adjustment
// builders.
type memCapper struct {
	api.PluginBase
	name    string
	created atomic.Int32
}

func (m *memCapper) CreateContainer(_ context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	m.created.Add(1)
	adj := &api.ContainerAdjustment{}
	adj.AddAnnotation("capped.example/"+m.name, "yes")
	if m.Events == 0 {
		adj.SetLinuxMemoryLimit(64 << 20)
	} else {
		adj.SetLinuxCPUSetCPUs("0-1")
	}
	return &api.CreateContainerResponse{Adjust: adj}, nil
}

// TestPluginBaseAnswersTheRest runs a full pod lifecycle past two plugins
// built on api.PluginBase: one subscribed to every event (the zero Events),
// one to CreateContainer only. Every event the embedded base answers
// succeeds with nothing, and the one method each implements is used.
func TestPluginBaseAnswersTheRest(t *testing.T) {
	all := &memCapper{name: "all"}
	only := &memCapper{name: "only", PluginBase: api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}}
	e := newEnv(t, adaptation.WithBuiltinPlugins(
		adaptation.BuiltinPlugin{Index: "10", Name: "all", Handler: all},
		adaptation.BuiltinPlugin{Index: "20", Name: "only", Handler: only},
	))
	e.start()
	e.waitPlugins("10-all", "20-only")

	created := runLifecycle(t, e.a, "pbase")
	for _, rsp := range created {
		adj := rsp.GetAdjust()
		for _, name := range []string{"all", "only"} {
			if got := adj.GetAnnotations()["capped.example/"+name]; got != "yes" {
				t.Errorf("annotation of %s = %q, want yes; adjustment %v", name, got, adj)
			}
		}
		if got := adj.GetLinux().GetResources().GetCpu().GetCpus(); got != "0-1" {
			t.Errorf("cpuset = %q, want 0-1", got)
		}
		if got := adj.GetLinux().GetResources().GetMemory().GetLimit().GetValue(); got != 64<<20 {
			t.Errorf("memory limit = %d, want %d", got, 64<<20)
		}
	}
	if n := all.created.Load(); n != int32(len(created)) {
		t.Errorf("plugin on every event created %d containers, want %d", n, len(created))
	}
	if n := only.created.Load(); n != int32(len(created)) {
		t.Errorf("plugin on CreateContainer created %d containers, want %d", n, len(created))
	}
}
