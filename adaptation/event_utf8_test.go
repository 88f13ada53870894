// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestInvalidStringsInRepliesAreRefused: a plugin process that hands back a
// string that is not valid UTF-8 (an adjustment, an update, an eviction, a
// validator's reason), on either revision, fails its reply with an error
// naming it and the field; nothing of that reply reaches the runtime, the
// plugin after it is not blamed, and it gets the next events.
func TestInvalidStringsInRepliesAreRefused(t *testing.T) {
	for _, rev := range []string{adaptation.RevisionV1alpha1, adaptation.RevisionV1beta1} {
		for _, c := range []struct {
			place string
			field string
			event api.Event
		}{
			{testplugin.InvalidAnnotationKey, "reply field adjust.annotations (a key)", api.Event_CREATE_CONTAINER},
			{testplugin.InvalidUpdate, "reply field update[0].container_id", api.Event_CREATE_CONTAINER},
			{testplugin.InvalidEviction, "reply field evict[0].reason", api.Event_UPDATE_CONTAINER},
			{testplugin.InvalidRejection, "reply field reason", api.Event_VALIDATE_CONTAINER_ADJUSTMENT},
		} {
			t.Run(rev+"/"+c.place, func(t *testing.T) {
				e := newEnv(t)
				e.preinstall("10", "liar", testplugin.Config{Revision: rev, InvalidUTF8: c.place})
				e.preinstall("20", "honest", testplugin.Config{Revision: rev, Annotations: map[string]string{"honest": "yes"}})
				e.start()
				e.waitPlugins("10-liar", "20-honest")
				ctx := context.Background()
				pod := testPod("p")
				must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
				ctr := testContainer("c1", pod)
				rsp, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
				if c.event == api.Event_UPDATE_CONTAINER {
					must(t, err)
					_, err = e.a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: ctr})
				}
				var perr *adaptation.PluginError
				if !errors.Is(err, adaptation.ErrInvalidUTF8) || !errors.As(err, &perr) || perr.Plugin != "10-liar" ||
					!strings.Contains(err.Error(), c.field) {
					t.Fatalf("%s: %v (response %v), want an ErrInvalidUTF8 of 10-liar naming %q", c.event.Name(), err, rsp, c.field)
				}
				if c.event == api.Event_VALIDATE_CONTAINER_ADJUSTMENT && errors.Is(err, adaptation.ErrRejected) {
					t.Errorf("a rejection whose reason does not decode was taken as a rejection: %v", err)
				}
				// The plugin after it is not blamed, and still takes events.
				if got := pluginIDs(e.a); !slices.Contains(got, "20-honest") {
					t.Fatalf("plugins %v: the honest plugin was dropped", got)
				}
				must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
				if got := e.events("honest"); !slices.Contains(got, "StopPodSandbox") {
					t.Errorf("the honest plugin got %v, want StopPodSandbox among them", got)
				}
			})
		}
	}
}

// TestInvalidSyncUpdateDropsThePlugin: an update with an invalid string in
// a plugin's Synchronize reply drops it during synchronization, with the
// field named; the runtime's SyncFn never gets it.
func TestInvalidSyncUpdateDropsThePlugin(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	e.preinstall("10", "liar", testplugin.Config{InvalidUTF8: testplugin.InvalidSyncUpdate})
	e.start()
	got := changes.waitFor(t, "10-liar", 1)
	if !strings.HasPrefix(got[0], "failed synchronize: ") || !strings.Contains(got[0], "reply field update[0].container_id") {
		t.Fatalf("10-liar: %q, want dropped during synchronize, naming the field", got)
	}
}

// TestInvalidStringsFromInProcessPlugin: an in-process plugin's reply is
// not decoded by anything, and is checked all the same.
func TestInvalidStringsFromInProcessPlugin(t *testing.T) {
	probe := newEnv(t)
	liar := probe.builtin("10", "liar", testplugin.Config{InvalidUTF8: testplugin.InvalidAnnotationKey})
	e := newEnvAt(t, probe, adaptation.WithBuiltinPlugins(liar))
	e.start()
	e.waitPlugins("10-liar")
	ctx := context.Background()
	pod := testPod("p")
	must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("c1", pod)})
	if !errors.Is(err, adaptation.ErrInvalidUTF8) || !strings.Contains(err.Error(), "10-liar") ||
		!strings.Contains(err.Error(), "adjust.annotations (a key)") {
		t.Fatalf("CreateContainer: %v, want an ErrInvalidUTF8 of 10-liar naming the annotation", err)
	}
}

// TestInvalidStringsInUnsolicitedUpdates: a plugin's UpdateContainers with
// an invalid string is refused with the field named, and the runtime's
// UpdateFn is not called.
func TestInvalidStringsInUnsolicitedUpdates(t *testing.T) {
	e := newEnv(t)
	var updateFnCalls atomic.Int32
	e.store.onUpdate = func(context.Context, []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
		updateFnCalls.Add(1)
		return nil, nil
	}
	e.start()
	p := dialRaw(t, e.socket)
	p.register(1, "20", "raw", api.MaskOf(api.Event_RUN_POD_SANDBOX))
	req := &api.UpdateContainersRequest{Update: []*api.ContainerUpdate{
		testplugin.Update{ContainerID: "c" + testplugin.InvalidString, CPUShares: 256}.ContainerUpdate(),
	}}
	p.send(p.runtime, ttrpcMessage(3, 1, 0, must1(proto.Marshal(&ttrpc.Request{
		Service: runtimeService, Method: "UpdateContainers", Payload: must1(req.MarshalVT()),
	}))))
	st := p.response(3).GetStatus()
	if !strings.Contains(st.GetMessage(), "request field update[0].container_id") {
		t.Errorf("UpdateContainers answered %v, want refused naming the field", st)
	}
	if n := updateFnCalls.Load(); n != 0 {
		t.Errorf("UpdateFn called %d times with an update that does not decode", n)
	}
	e.runPodThrough(t, p, "after") // still connected and served
}

// TestInvalidStringsInRuntimeRequests: a request the runtime hands over
// with an invalid string fails a setup event once, naming the field, before
// any plugin gets it; a teardown event is relayed to none, and does not
// fail.
func TestInvalidStringsInRuntimeRequests(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "a", testplugin.Config{})
	e.preinstall("20", "b", testplugin.Config{})
	e.start()
	e.waitPlugins("10-a", "20-b")
	ctx := context.Background()
	pod := testPod("p")
	must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	ctr := testContainer("c1", pod)
	ctr.Annotations = map[string]string{"note": "x" + testplugin.InvalidString}
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	var perr *adaptation.PluginError
	if !errors.Is(err, adaptation.ErrInvalidUTF8) || errors.As(err, &perr) ||
		!strings.Contains(err.Error(), `request field container.annotations["note"]`) {
		t.Fatalf("CreateContainer: %v, want an ErrInvalidUTF8 naming the field and no plugin", err)
	}
	if _, err := e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Fatalf("StopContainer: %v, want no failure for a teardown event", err)
	}
	e.waitLoggedMessage("nrikit: event relayed to no plugin")
	must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
	for _, name := range []string{"a", "b"} {
		if got := e.events(name); !slices.Equal(got, []string{"RunPodSandbox", "StopPodSandbox"}) {
			t.Errorf("plugin %s got %v, want RunPodSandbox and StopPodSandbox only", name, got)
		}
	}
	if got := pluginIDs(e.a); !slices.Equal(got, []string{"10-a", "20-b"}) {
		t.Errorf("plugins %v after the runtime's invalid request, want both", got)
	}
}
