// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestRequestsTheReferenceAccepts goes through the runtime's inputs that
// nrikit could check, each with what the reference (v0.12.5 pkg/adaptation)
// does with it and what nrikit does. Where the reference relays an input to
// plugins, nrikit does too; it refuses only what would break a guarantee.
func TestRequestsTheReferenceAccepts(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "any", testplugin.Config{})
	e.start()
	ctx := context.Background()
	noID := &api.Container{PodSandboxId: "p"}
	pod := testPod("p")
	removed := testPod("gone")
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: removed}); err != nil {
		t.Fatal(err)
	}
	if err := e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: removed}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		input     string
		reference string // what v0.12.5 does
		nrikit    string // what nrikit does
		call      func() error
		wantErr   error    // nil: accepted
		delivered []string // what the plugin gets from the call
	}{
		{
			input:     "UpdateContainer of a container with an empty ID (CRI-O's unit suite sends one)",
			reference: "relays it; the response ends with a null entry",
			nrikit:    "relays it; the response ends with the requested resources, for container \"\"",
			call: func() error {
				rsp, err := e.a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: noID,
					LinuxResources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0"}}})
				if err == nil {
					last := rsp.GetUpdate()[len(rsp.GetUpdate())-1]
					if last.GetContainerId() != "" || last.GetLinux().GetResources().GetCpu().GetCpus() != "0" {
						t.Errorf("last update %v, want the requested resources", last)
					}
				}
				return err
			},
			delivered: []string{"UpdateContainer"},
		},
		{
			input:     "CreateContainer of a container with an empty ID",
			reference: "relays it",
			nrikit:    "relays it, without lifecycle bookkeeping for the container",
			call: func() error {
				_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: noID})
				return err
			},
			delivered: []string{"CreateContainer", "ValidateContainerAdjustment"},
		},
		{
			input:     "PostCreateContainer, StartContainer, PostStartContainer, PostUpdateContainer, StopContainer, RemoveContainer of a container with an empty ID",
			reference: "relays them",
			nrikit:    "relays them",
			call: func() error {
				return errors.Join(
					e.a.PostCreateContainer(ctx, &api.PostCreateContainerRequest{Pod: pod, Container: noID}),
					e.a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: noID}),
					e.a.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: pod, Container: noID}),
					e.a.PostUpdateContainer(ctx, &api.PostUpdateContainerRequest{Pod: pod, Container: noID}),
					func() error {
						_, err := e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: noID})
						return err
					}(),
					e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: noID}),
				)
			},
			delivered: []string{"PostCreateContainer", "StartContainer", "PostStartContainer", "PostUpdateContainer", "StopContainer", "RemoveContainer"},
		},
		{
			input:     "every pod event for a pod with an empty ID",
			reference: "relays them",
			nrikit:    "relays them, without lifecycle bookkeeping for the pod",
			call: func() error {
				p := &api.PodSandbox{Name: "anonymous"}
				return errors.Join(
					e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: p}),
					func() error { _, err := e.a.UpdatePodSandbox(ctx, &api.UpdatePodSandboxRequest{Pod: p}); return err }(),
					e.a.PostUpdatePodSandbox(ctx, &api.PostUpdatePodSandboxRequest{Pod: p}),
					e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: p}),
					e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: p}),
				)
			},
			delivered: []string{"RunPodSandbox", "UpdatePodSandbox", "PostUpdatePodSandbox", "StopPodSandbox", "RemovePodSandbox"},
		},
		{
			input:     "a container event naming no pod at all",
			reference: "relays it",
			nrikit:    "relays it",
			call: func() error {
				return e.a.StartContainer(ctx, &api.StartContainerRequest{Container: &api.Container{Id: "orphan"}})
			},
			delivered: []string{"StartContainer"},
		},
		{
			input:     "a nil StopPodSandbox request (any teardown or notification)",
			reference: "relays an empty request",
			nrikit:    "relays an empty request",
			call:      func() error { return e.a.StopPodSandbox(ctx, nil) },
			delivered: []string{"StopPodSandbox"},
		},
		{
			input:     "a nil CreateContainer request",
			reference: "panics (nil container)",
			nrikit:    "relays an empty request, returns an empty adjustment",
			call: func() error {
				rsp, err := e.a.CreateContainer(ctx, nil)
				if err == nil && rsp.GetAdjust() == nil {
					t.Error("no adjustment in the response")
				}
				return err
			},
			delivered: []string{"CreateContainer", "ValidateContainerAdjustment"},
		},
		{
			input:     "a nil UpdateContainer request",
			reference: "panics (nil container)",
			nrikit:    "relays an empty request",
			call:      func() error { _, err := e.a.UpdateContainer(ctx, nil); return err },
			delivered: []string{"UpdateContainer"},
		},
		{
			input:     "a setup event (RunPodSandbox) for a pod already removed",
			reference: "relays it",
			nrikit:    "refuses it with ErrRemoved: plugins never hear of a pod after its removal (migration guide)",
			call:      func() error { return e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: removed}) },
			wantErr:   adaptation.ErrRemoved,
		},
	}
	for _, tc := range cases {
		before := len(e.events("any"))
		err := tc.call()
		switch {
		case tc.wantErr == nil && err != nil:
			t.Errorf("%s: %v; the reference %s, nrikit must: %s", tc.input, err, tc.reference, tc.nrikit)
		case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
			t.Errorf("%s: %v, want %v (%s)", tc.input, err, tc.wantErr, tc.nrikit)
		}
		if got := e.events("any")[before:]; !equal(got, tc.delivered) {
			t.Errorf("%s: the plugin got %v, want %v", tc.input, got, tc.delivered)
		}
	}
	// Accepting all that left the plugin, and the contract, working.
	runLifecycle(t, e.a, "after")
	got := e.events("any")
	if !equal(got[len(got)-len(fullLifecycleEvents):], fullLifecycleEvents) {
		t.Errorf("afterwards the plugin got %v", got[len(got)-len(fullLifecycleEvents):])
	}
}

// TestSyncResultsTheReferenceAccepts: what a runtime's SyncFn may do.
func TestSyncResultsTheReferenceAccepts(t *testing.T) {
	t.Run("returns without calling the callback", func(t *testing.T) {
		// Reference: the plugin joins without any Synchronize.
		// nrikit: it joins with an empty snapshot, and a warning.
		e := newEnv(t)
		e.store.syncWith = func(context.Context, adaptation.SyncCB) error { return nil }
		e.preinstall("10", "any", testplugin.Config{})
		e.start()
		e.waitPlugins("10-any")
		if len(testplugin.Find(e.records(), "any", "Synchronize")) != 1 {
			t.Error("the plugin got no snapshot")
		}
		warned := false
		for _, entry := range e.logged(logrus.Fields{"plugin": "10-any"}) {
			warned = warned || strings.Contains(entry.Message, "did not call its callback")
		}
		if !warned {
			t.Error("no warning that the sync function did not call its callback")
		}
	})
	t.Run("lists pods and containers with empty IDs, and nil entries", func(t *testing.T) {
		// Reference: sends them (a nil entry encodes as an empty message).
		// nrikit: sends them, and keeps no lifecycle bookkeeping for them.
		e := newEnv(t)
		e.store.set([]*api.PodSandbox{{Name: "anonymous"}, nil, testPod("p")},
			[]*api.Container{{PodSandboxId: "p"}, nil})
		e.preinstall("10", "any", testplugin.Config{})
		e.start()
		e.waitPlugins("10-any")
		runLifecycle(t, e.a, "after")
		got := e.events("any")
		if !equal(got, fullLifecycleEvents) {
			t.Errorf("after the snapshot the plugin got %v", got)
		}
	})
	t.Run("calls the callback twice", func(t *testing.T) {
		// Reference: sends the plugin a second snapshot.
		// nrikit: refuses the second call: every pod is announced once
		// (migration guide); the plugin is dropped if SyncFn fails.
		e := newEnv(t)
		var second error
		e.store.syncWith = func(ctx context.Context, cb adaptation.SyncCB) error {
			if _, err := cb(ctx, nil, nil); err != nil {
				return err
			}
			_, second = cb(ctx, nil, nil)
			return second
		}
		e.preinstall("10", "any", testplugin.Config{})
		e.start()
		e.waitLogged(logrus.Fields{"plugin": "10-any", "phase": "synchronize"})
		if second == nil {
			t.Error("the second callback was accepted")
		}
	})
}

// TestNewAcceptsAnEmptyRuntimeName: the reference accepts it, and so does
// nrikit; plugins get it as is in Configure.
func TestNewAcceptsAnEmptyRuntimeName(t *testing.T) {
	if _, err := adaptation.New("", "", nil, nil); err != nil {
		t.Fatal(err)
	}
}
