// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// manyUpdates is an in-process plugin that answers UpdateContainer with new CPU
// shares for n other containers.
type manyUpdates struct {
	api.PluginBase
	shares uint64
	n      int
	ignore bool
}

func (u *manyUpdates) UpdateContainer(context.Context, *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	rsp := &api.UpdateContainerResponse{}
	for i := range u.n {
		rsp.Update = append(rsp.Update, &api.ContainerUpdate{
			ContainerId:   fmt.Sprintf("other-%d", i),
			IgnoreFailure: u.ignore,
			Linux: &api.LinuxContainerUpdate{Resources: &api.LinuxResources{
				Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: u.shares}}}},
		})
	}
	return rsp, nil
}

// TestIgnoredUpdatesLogBounded: thousands of conflicting updates a plugin
// allowed to fail make a bounded number of log lines, the last one counting
// the rest.
func TestIgnoredUpdatesLogBounded(t *testing.T) {
	const n = 1000
	mask := api.PluginBase{Events: api.MaskOf(api.Event_UPDATE_CONTAINER)}
	e := newEnv(t, adaptation.WithBuiltinPlugins(
		adaptation.BuiltinPlugin{Index: "10", Name: "first", Handler: &manyUpdates{PluginBase: mask, shares: 100, n: n}},
		adaptation.BuiltinPlugin{Index: "20", Name: "second", Handler: &manyUpdates{PluginBase: mask, shares: 200, n: n, ignore: true}}))
	e.start()
	pod := testPod("p")
	ctr := testContainer("c", pod)
	if _, err := e.a.UpdateContainer(context.Background(), &api.UpdateContainerRequest{Pod: pod, Container: ctr,
		LinuxResources: &api.LinuxResources{}}); err != nil {
		t.Fatal(err)
	}
	ignored := e.logged(logrus.Fields{"event": "UpdateContainer"})
	var each, rest int
	for _, en := range ignored {
		switch en.Message {
		case "nrikit: conflicting update ignored as its plugin allowed":
			each++
		case "nrikit: more conflicting updates ignored as their plugins allowed":
			rest++
			if en.Data["count"] != n-each {
				t.Errorf("the summary counts %v, want %d", en.Data["count"], n-each)
			}
		}
	}
	if each == 0 || each > 20 || rest != 1 {
		t.Errorf("%d lines for single ignored updates and %d summaries, want a few and one", each, rest)
	}
}
