// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

func TestConfigure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		mask   api.EventMask
		policy *api.FailurePolicy
	}{
		{"default is all", Config{}, api.AllEvents, nil},
		{"all", Config{Events: "all"}, api.AllEvents, nil},
		{"list", Config{Events: "runpodsandbox,createcontainer"},
			api.MaskOf(api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER), nil},
		{"failure policy", Config{Events: "stopcontainer", FailurePolicy: &FailurePolicy{FailRequest: true, KeepConnected: true}},
			api.MaskOf(api.Event_STOP_CONTAINER), &api.FailurePolicy{FailRequest: true, KeepConnected: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Name, tc.cfg.Index, tc.cfg.LogPath = "p", "10", logPath(t)
			h := mustHandler(t, tc.cfg)
			resp, err := h.Configure(context.Background(), &api.ConfigureRequest{Config: "some config"})
			if err != nil {
				t.Fatalf("Configure: %v", err)
			}
			if got := api.EventMask(resp.GetEvents()); got != tc.mask {
				t.Errorf("events = %v (0x%x), want %v (0x%x)", got, uint32(got), tc.mask, uint32(tc.mask))
			}
			if !proto.Equal(resp.GetFailurePolicy(), tc.policy) {
				t.Errorf("failure policy = %v, want %v", resp.GetFailurePolicy(), tc.policy)
			}
			recs := readLog(t, tc.cfg.LogPath)
			if len(recs) != 1 || recs[0].Event != KeyConfigure || recs[0].Config != "some config" ||
				recs[0].Plugin != "p" || recs[0].Index != "10" || recs[0].PID == 0 {
				t.Errorf("log = %+v", recs)
			}
		})
	}
}

func TestConfigInvalid(t *testing.T) {
	for _, cfg := range []Config{
		{Events: "runpodsandbox,nosuchevent"},
		{Events: ","},
		{Delay: "soon"},
		{Delay: "-1s"},
		{Behaviours: map[string]Behaviour{"StopContainers": {}}},
		{Behaviours: map[string]Behaviour{"StopContainer": {Delay: "x"}}},
		{Revision: "v1gamma1"},
		{Revision: RevisionV1beta1, Legacy: true},
		{Revision: RevisionV1beta1, FailurePolicy: &FailurePolicy{FailRequest: true}},
	} {
		if _, err := NewHandler(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("NewHandler(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}

func TestCreateContainerAdjustment(t *testing.T) {
	h := mustHandler(t, Config{
		Name:        "adj",
		Index:       "20",
		Annotations: map[string]string{"a": "1", "b": "2"},
		Env:         map[string]string{"Z": "last", "A": "first"},
	})
	resp, err := h.CreateContainer(context.Background(), &api.CreateContainerRequest{
		Pod:       &api.PodSandbox{Id: "pod"},
		Container: &api.Container{Id: "ctr"},
	})
	if err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	want := &api.ContainerAdjustment{
		Annotations: map[string]string{"a": "1", "b": "2"},
		Env:         []*api.KeyValue{{Key: "A", Value: "first"}, {Key: "Z", Value: "last"}},
	}
	if !proto.Equal(resp.GetAdjust(), want) {
		t.Errorf("adjust = %v, want %v", resp.GetAdjust(), want)
	}

	plain := mustHandler(t, Config{})
	resp, err = plain.CreateContainer(context.Background(), &api.CreateContainerRequest{})
	if err != nil || resp.GetAdjust() != nil {
		t.Errorf("no adjustment configured: resp %v, err %v", resp, err)
	}
}

func TestBehaviourFail(t *testing.T) {
	path := logPath(t)
	h := mustHandler(t, Config{Name: "f", LogPath: path, Behaviours: map[string]Behaviour{
		"StopContainer": {Fail: "boom"},
		KeyConfigure:    {Fail: "no config"},
		KeySynchronize:  {Fail: "no sync"},
	}})
	ctx := context.Background()
	if _, err := h.StopContainer(ctx, &api.StopContainerRequest{Container: &api.Container{Id: "c"}}); err == nil || err.Error() != "boom" {
		t.Errorf("StopContainer error = %v, want boom", err)
	}
	if _, err := h.Configure(ctx, &api.ConfigureRequest{}); err == nil || err.Error() != "no config" {
		t.Errorf("Configure error = %v, want 'no config'", err)
	}
	if _, err := h.Synchronize(ctx, &api.SynchronizeRequest{}); err == nil || err.Error() != "no sync" {
		t.Errorf("Synchronize error = %v, want 'no sync'", err)
	}
	// Other events are unaffected.
	if _, err := h.UpdateContainer(ctx, &api.UpdateContainerRequest{}); err != nil {
		t.Errorf("UpdateContainer: %v", err)
	}
	recs := readLog(t, path)
	if got := Events(recs, "f"); !slices.Equal(got, []string{"StopContainer", "Configure", "Synchronize", "UpdateContainer"}) {
		t.Errorf("events = %v", got)
	}
	if r := Find(recs, "f", "StopContainer"); len(r) != 1 || r[0].Error != "boom" || r[0].Container != "c" {
		t.Errorf("StopContainer record = %+v", r)
	}
}

func TestBehaviourHang(t *testing.T) {
	path := logPath(t)
	h := mustHandler(t, Config{Name: "h", LogPath: path, Behaviours: map[string]Behaviour{
		"RunPodSandbox": {Hang: true},
	}})

	// With a deadline: the call ends when the deadline does.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := h.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: &api.PodSandbox{Id: "p"}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang with deadline: %v, want DeadlineExceeded", err)
	}

	// Without a deadline: only Close ends it.
	done := make(chan error, 1)
	go func() {
		_, err := h.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: &api.PodSandbox{Id: "p2"}})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("hang without deadline returned %v", err)
	default:
	}
	h.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("hang after Close: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hanging call did not end on Close")
	}
	// The second call may have come after Close, and was then refused
	// rather than logged; the first one is logged either way.
	if recs := Find(readLog(t, path), "h", "RunPodSandbox"); len(recs) < 1 || recs[0].Pod != "p" {
		t.Errorf("RunPodSandbox records = %+v", recs)
	}
}

func TestDelay(t *testing.T) {
	h := mustHandler(t, Config{Delay: "1h", Behaviours: map[string]Behaviour{
		"StartContainer": {Delay: "1ms"},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	// The global delay applies to events ...
	if _, err := h.StopContainer(ctx, &api.StopContainerRequest{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("delayed StopContainer: %v, want DeadlineExceeded", err)
	}
	// ... a behaviour's own delay overrides it ...
	if _, err := h.StartContainer(context.Background(), &api.StartContainerRequest{}); err != nil {
		t.Errorf("StartContainer: %v", err)
	}
	// ... and Configure is not an event.
	if _, err := h.Configure(context.Background(), &api.ConfigureRequest{}); err != nil {
		t.Errorf("Configure: %v", err)
	}
}

func TestSynchronizeSplit(t *testing.T) {
	path := logPath(t)
	h := mustHandler(t, Config{Name: "s", LogPath: path})
	ctx := context.Background()
	chunks := []*api.SynchronizeRequest{
		{Pods: []*api.PodSandbox{{Id: "p1", State: api.PodSandboxState_POD_SANDBOX_READY}}, Containers: []*api.Container{{Id: "c1"}}, More: true},
		{Pods: []*api.PodSandbox{{Id: "p2", State: api.PodSandboxState_POD_SANDBOX_UNKNOWN}}, More: true},
		{Containers: []*api.Container{{Id: "c2"}, {Id: "c3"}}},
	}
	for i, req := range chunks {
		resp, err := h.Synchronize(ctx, req)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if resp.GetMore() != req.GetMore() || len(resp.GetUpdate()) != 0 {
			t.Errorf("chunk %d: reply %v, want more=%v and no updates", i, resp, req.GetMore())
		}
	}
	recs := readLog(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records, want one for the whole exchange: %+v", len(recs), recs)
	}
	r := recs[0]
	if r.Event != KeySynchronize || r.Chunks != 3 ||
		!slices.Equal(r.Pods, []string{"p1", "p2"}) || !slices.Equal(r.Containers, []string{"c1", "c2", "c3"}) ||
		r.PodStates["p1"] != "POD_SANDBOX_READY" || r.PodStates["p2"] != "POD_SANDBOX_UNKNOWN" {
		t.Errorf("record = %+v", r)
	}

	// A later exchange starts afresh.
	if _, err := h.Synchronize(ctx, &api.SynchronizeRequest{Pods: []*api.PodSandbox{{Id: "p9"}}}); err != nil {
		t.Fatal(err)
	}
	if r := readLog(t, path)[1]; r.Chunks != 1 || !slices.Equal(r.Pods, []string{"p9"}) {
		t.Errorf("second exchange = %+v", r)
	}
}

func TestLegacyInProcess(t *testing.T) {
	path := logPath(t)
	h := mustHandler(t, Config{Name: "old", Index: "05", Legacy: true, LogPath: path})
	ctx := context.Background()
	pod := &api.PodSandbox{Id: "p", State: api.PodSandboxState_POD_SANDBOX_READY}

	_, err := h.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("RunPodSandbox on a legacy plugin: %v, want Unimplemented", err)
	}
	_, err = h.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("RemoveContainer on a legacy plugin: %v, want Unimplemented", err)
	}
	// Events v0.11.0 already had keep their RPC.
	if _, err := h.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: &api.Container{Id: "c"}}); err != nil {
		t.Errorf("StopContainer: %v", err)
	}
	if _, err := h.StateChange(ctx, &api.StateChangeEvent{Event: api.Event_RUN_POD_SANDBOX, Pod: pod}); err != nil {
		t.Errorf("StateChange: %v", err)
	}
	// Values that are not events are acknowledged and not logged.
	if _, err := h.StateChange(ctx, &api.StateChangeEvent{Event: api.Event_LAST}); err != nil {
		t.Errorf("StateChange(LAST): %v", err)
	}
	recs := readLog(t, path)
	if got := Events(recs, "05-old"); !slices.Equal(got, []string{"StopContainer", "RunPodSandbox"}) {
		t.Fatalf("events = %v", got)
	}
	if r := recs[1]; r.Via != ViaStateChange || r.Pod != "p" || r.PodState != "POD_SANDBOX_READY" {
		t.Errorf("StateChange record = %+v", r)
	}

	neither := mustHandler(t, Config{Legacy: true, NoStateChange: true})
	if _, err := neither.StateChange(ctx, &api.StateChangeEvent{Event: api.Event_RUN_POD_SANDBOX, Pod: pod}); status.Code(err) != codes.Unimplemented {
		t.Errorf("StateChange with NoStateChange: %v, want Unimplemented", err)
	}
}

func TestShutdown(t *testing.T) {
	path := logPath(t)
	h := mustHandler(t, Config{Name: "x", LogPath: path})
	select {
	case <-h.ShutdownRequested():
		t.Fatal("shutdown requested before Shutdown")
	default:
	}
	if _, err := h.Shutdown(context.Background(), &api.ShutdownRequest{Reason: "replaced"}); err != nil {
		t.Fatal(err)
	}
	<-h.ShutdownRequested()
	if r := Find(readLog(t, path), "x", KeyShutdown); len(r) != 1 || r[0].Reason != "replaced" {
		t.Errorf("Shutdown records = %+v", r)
	}
}

// TestLogConcurrent checks that concurrent calls, from two handlers sharing
// one file as two plugin processes would, never tear a line.
func TestLogConcurrent(t *testing.T) {
	path := logPath(t)
	a := mustHandler(t, Config{Name: "a", LogPath: path})
	b := mustHandler(t, Config{Name: "b", LogPath: path})
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		for _, h := range []*Handler{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := fmt.Sprintf("c%d", i)
				if _, err := h.StopContainer(context.Background(), &api.StopContainerRequest{Container: &api.Container{Id: id}}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	recs := readLog(t, path)
	if len(recs) != 2*n || Count(recs, "a", "StopContainer") != n || Count(recs, "b", "StopContainer") != n {
		t.Fatalf("%d records (a %d, b %d), want %d each", len(recs), Count(recs, "a", "StopContainer"), Count(recs, "b", "StopContainer"), n)
	}
	if len(Of(recs, "")) != 2*n || len(Of(recs, "nobody")) != 0 {
		t.Error("Of selects wrongly")
	}
}

// TestSynchronizeUpdates: the configured updates come with the final reply
// of a split Synchronize, and only with it.
func TestSynchronizeUpdates(t *testing.T) {
	h := mustHandler(t, Config{Name: "su", SyncUpdates: []Update{
		{ContainerID: "c1", CPUShares: 512},
		{ContainerID: "c2", IgnoreFailure: true},
	}})
	ctx := context.Background()
	first, err := h.Synchronize(ctx, &api.SynchronizeRequest{More: true})
	if err != nil || len(first.GetUpdate()) != 0 {
		t.Fatalf("first chunk: %v, %v; want no updates", first, err)
	}
	last, err := h.Synchronize(ctx, &api.SynchronizeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []*api.ContainerUpdate{
		{ContainerId: "c1", Linux: &api.LinuxContainerUpdate{Resources: &api.LinuxResources{
			Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}}}}},
		{ContainerId: "c2", IgnoreFailure: true},
	}
	if got := last.GetUpdate(); !slices.EqualFunc(got, want, func(a, b *api.ContainerUpdate) bool { return proto.Equal(a, b) }) {
		t.Errorf("final reply updates = %v, want %v", got, want)
	}
}
