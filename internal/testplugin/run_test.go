// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// TestStartHandshake plays the runtime over a socketpair. Its RegisterPlugin
// handler calls Configure before replying, the ordering race the reference
// allows, which only works if the plugin serves before it registers.
func TestStartHandshake(t *testing.T) {
	path := logPath(t)
	runtimeEnd, pluginEnd := connPair(t)
	configured := make(chan error, 1)
	var rt *fakeRuntime
	rt = newFakeRuntime(t, runtimeEnd, func(ctx context.Context, req *api.RegisterPluginRequest) error {
		resp, err := rt.plugin.Configure(ctx, &api.ConfigureRequest{Config: "cfg"})
		if err == nil && api.EventMask(resp.GetEvents()) != api.MaskOf(api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER) {
			err = errors.New("wrong mask " + api.EventMask(resp.GetEvents()).String())
		}
		configured <- err
		return nil
	})

	p, err := Start(context.Background(), pluginEnd, Config{
		Name: "hs", Index: "42", Events: "runpodsandbox,createcontainer", LogPath: path,
		Annotations: map[string]string{"k": "v"},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Close()
	if err := <-configured; err != nil {
		t.Fatalf("Configure during RegisterPlugin: %v", err)
	}
	want := &api.RegisterPluginRequest{PluginName: "hs", PluginIdx: "42", NRIVersion: NRIVersion}
	if got := rt.waitRegistered(t); !proto.Equal(got, want) {
		t.Errorf("RegisterPlugin = %v, want %v", got, want)
	}

	ctx := context.Background()
	if _, err := rt.plugin.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: &api.PodSandbox{Id: "pod", State: api.PodSandboxState_POD_SANDBOX_UNKNOWN}}); err != nil {
		t.Fatalf("RunPodSandbox: %v", err)
	}
	resp, err := rt.plugin.CreateContainer(ctx, &api.CreateContainerRequest{Pod: &api.PodSandbox{Id: "pod"}, Container: &api.Container{Id: "ctr"}})
	if err != nil || resp.GetAdjust().GetAnnotations()["k"] != "v" {
		t.Fatalf("CreateContainer: %v, %v", resp, err)
	}

	// Unsolicited updates reach the runtime, and its reply comes back.
	updates := []*api.ContainerUpdate{{ContainerId: "c1"}, {ContainerId: "c2"}}
	failed, err := p.UpdateContainers(ctx, updates)
	if err != nil || len(failed) != 1 || failed[0].GetContainerId() != "c1" {
		t.Fatalf("UpdateContainers = %v, %v", failed, err)
	}
	if req := <-rt.updates; len(req.GetUpdate()) != 2 {
		t.Errorf("runtime got %v", req)
	}

	// Shutdown ends Wait cleanly; this runtime does not close the
	// connection, so the plugin leaves after ShutdownGrace.
	if _, err := rt.plugin.Shutdown(ctx, &api.ShutdownRequest{Reason: "test over"}); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := p.Wait(ctx); err != nil {
		t.Errorf("Wait after Shutdown: %v", err)
	}
	select {
	case <-rt.mux.Done():
	case <-time.After(waitTimeout):
		t.Error("plugin still connected after Shutdown and the grace period")
	}

	recs := readLog(t, path)
	if got := Events(recs, "42-hs"); !slices.Equal(got, []string{"Configure", "RunPodSandbox", "CreateContainer", "Shutdown"}) {
		t.Fatalf("events = %v", got)
	}
	if r := recs[1]; r.Pod != "pod" || r.PodState != "POD_SANDBOX_UNKNOWN" || r.Via != "" {
		t.Errorf("RunPodSandbox record = %+v", r)
	}
	if r := recs[3]; r.Reason != "test over" {
		t.Errorf("Shutdown record = %+v", r)
	}
}

// TestRunPeerClose checks that a runtime closing the trunk is a clean end,
// even with a call hanging in the plugin.
func TestRunPeerClose(t *testing.T) {
	runtimeEnd, pluginEnd := connPair(t)
	rt := newFakeRuntime(t, runtimeEnd, nil)
	runErr := make(chan error, 1)
	go func() {
		runErr <- Run(context.Background(), pluginEnd, Config{Name: "pc", Index: "01",
			Behaviours: map[string]Behaviour{"StopContainer": {Hang: true}}})
	}()
	rt.waitRegistered(t)

	callErr := make(chan error, 1)
	go func() {
		_, err := rt.plugin.StopContainer(context.Background(), &api.StopContainerRequest{})
		callErr <- err
	}()
	rt.close()
	if err := waitErr(t, runErr, "Run"); err != nil {
		t.Errorf("Run after the runtime closed: %v", err)
	}
	if err := waitErr(t, callErr, "hanging call"); err == nil {
		t.Error("hanging call succeeded")
	}
}

func TestRunContextCancel(t *testing.T) {
	runtimeEnd, pluginEnd := connPair(t)
	rt := newFakeRuntime(t, runtimeEnd, nil)
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- Run(ctx, pluginEnd, Config{Name: "cc", Index: "01"}) }()
	rt.waitRegistered(t)
	cancel()
	if err := waitErr(t, runErr, "Run"); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

// TestRunRegisterHang: a plugin that never registers still serves, and ends
// cleanly when the runtime gives up on it.
func TestRunRegisterHang(t *testing.T) {
	runtimeEnd, pluginEnd := connPair(t)
	rt := newFakeRuntime(t, runtimeEnd, nil)
	p, err := Start(context.Background(), pluginEnd, Config{Name: "rh", Index: "01",
		Behaviours: map[string]Behaviour{KeyRegister: {Hang: true}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	// Start has returned, so any RegisterPlugin would have been sent, and
	// the Configure round trip orders it before this check.
	if _, err := rt.plugin.Configure(context.Background(), &api.ConfigureRequest{}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	if n := len(rt.registered); n != 0 {
		t.Fatalf("plugin registered despite Register hang")
	}
	rt.close()
	if err := p.Wait(context.Background()); err != nil {
		t.Errorf("Wait: %v", err)
	}
}

func TestStartRegisterRejected(t *testing.T) {
	runtimeEnd, pluginEnd := connPair(t)
	newFakeRuntime(t, runtimeEnd, func(context.Context, *api.RegisterPluginRequest) error {
		return errors.New("invalid plugin")
	})
	_, err := Start(context.Background(), pluginEnd, Config{Name: "rr", Index: "01"})
	if err == nil || !strings.Contains(err.Error(), "01-rr") || !strings.Contains(err.Error(), "invalid plugin") {
		t.Errorf("Start = %v, want a registration error naming the plugin", err)
	}
}

// TestServiceDesc checks the method sets: all of api.PluginService for a
// modern plugin, minus the nine newer ones for a legacy plugin, minus
// StateChange without it.
func TestServiceDesc(t *testing.T) {
	svc := reflect.TypeFor[api.PluginService]()
	var all []string
	for i := range svc.NumMethod() {
		all = append(all, svc.Method(i).Name)
	}
	var newer []string
	for _, e := range LegacyEvents {
		newer = append(newer, e.Name())
	}
	without := func(names []string, drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
	}
	for _, tc := range []struct {
		cfg  Config
		want []string
	}{
		{Config{}, all},
		{Config{NoStateChange: true}, without(all, "StateChange")},
		{Config{Legacy: true}, without(all, newer...)},
		{Config{Legacy: true, NoStateChange: true}, without(all, append(newer, "StateChange")...)},
	} {
		h := mustHandler(t, tc.cfg)
		var got []string
		for name := range ServiceDesc(h).Methods {
			got = append(got, name)
		}
		sort.Strings(got)
		sort.Strings(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("legacy=%v noStateChange=%v: methods %v, want %v", tc.cfg.Legacy, tc.cfg.NoStateChange, got, tc.want)
		}
	}
}

// TestLegacyOverTTRPC checks what a runtime sees from a legacy plugin on the
// wire: the ttrpc server's own Unimplemented, and events via StateChange.
func TestLegacyOverTTRPC(t *testing.T) {
	for _, noStateChange := range []bool{false, true} {
		path := logPath(t)
		runtimeEnd, pluginEnd := connPair(t)
		rt := newFakeRuntime(t, runtimeEnd, nil)
		runErr := make(chan error, 1)
		go func() {
			runErr <- Run(context.Background(), pluginEnd, Config{Name: "old", Index: "03", Legacy: true,
				NoStateChange: noStateChange, LogPath: path})
		}()
		rt.waitRegistered(t)
		ctx := context.Background()
		pod := &api.PodSandbox{Id: "p"}

		_, err := rt.plugin.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
		if st, _ := status.FromError(err); st.Code() != codes.Unimplemented || st.Message() != "method RunPodSandbox" {
			t.Errorf("RunPodSandbox: %v, want Unimplemented 'method RunPodSandbox'", err)
		}
		_, err = rt.plugin.StateChange(ctx, &api.StateChangeEvent{Event: api.Event_RUN_POD_SANDBOX, Pod: pod})
		if noStateChange {
			if status.Code(err) != codes.Unimplemented {
				t.Errorf("StateChange without it: %v, want Unimplemented", err)
			}
		} else if err != nil {
			t.Errorf("StateChange: %v", err)
		}
		if _, err := rt.plugin.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: &api.Container{Id: "c"}}); err != nil {
			t.Errorf("CreateContainer: %v", err)
		}
		rt.close()
		if err := waitErr(t, runErr, "Run"); err != nil {
			t.Errorf("Run: %v", err)
		}

		want := []string{"RunPodSandbox", "CreateContainer"}
		if noStateChange {
			want = want[1:]
		}
		recs := readLog(t, path)
		if got := Events(recs, "old"); !slices.Equal(got, want) {
			t.Errorf("noStateChange=%v: events %v, want %v", noStateChange, got, want)
		}
		if !noStateChange && recs[0].Via != ViaStateChange {
			t.Errorf("RunPodSandbox record %+v, want via StateChange", recs[0])
		}
	}
}
