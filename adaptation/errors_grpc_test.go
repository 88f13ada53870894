// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestErrorsCarryGRPCCodes: each way nrikit fails a runtime's operation
// reaches the runtime's caller with a gRPC code of its own through
// status.FromError, also once the runtime wrapped it (as containerd's
// "NRI RunPodSandbox failed: %w" does), with the whole text as the
// message: a missing required plugin Unavailable, a plugin's refusal and
// a rejection FailedPrecondition, a mandatory plugin's timeout
// Unavailable, the caller's deadline and cancellation their own codes.
func TestErrorsCarryGRPCCodes(t *testing.T) {
	e := newEnv(t,
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true}),
		adaptation.WithPluginReadiness(adaptation.ReadinessConfig{Wait: adaptation.Duration(100 * time.Millisecond)}),
		adaptation.WithPluginSettings("20-hang", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(200 * time.Millisecond),
			FailurePolicy: &adaptation.FailurePolicy{FailRequest: true, KeepConnected: true}}))
	e.preinstall("10", "refuser", testplugin.Config{Events: "createcontainer,updatecontainer",
		Behaviours: map[string]testplugin.Behaviour{"UpdateContainer": {Fail: "not on this node"}}})
	e.preinstall("20", "hang", testplugin.Config{Events: "updatepodsandbox",
		Behaviours: map[string]testplugin.Behaviour{"UpdatePodSandbox": {Hang: true}}})
	e.start()
	e.waitPlugins("10-refuser", "20-hang")

	pod := testPod("codes")
	if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	ctr := testContainer("codes-c", pod)
	if _, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Fatal(err)
	}
	needy := testPod("needy")
	needy.Annotations = map[string]string{validator.RequiredPlugins: "[absent]"}
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancelPast()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	removed := testPod("removed")
	if err := e.a.RemovePodSandbox(context.Background(), &api.RemovePodSandboxRequest{Pod: removed}); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		err  func() error
		want codes.Code
		is   error
	}{
		{"a required plugin missing (AwaitPlugins)", func() error { return e.a.AwaitPlugins(context.Background(), needy) },
			codes.Unavailable, adaptation.ErrPluginsNotReady},
		{"a required plugin missing (RunPodSandbox)", func() error {
			return e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: needy})
		}, codes.Unavailable, adaptation.ErrPluginsNotReady},
		{"a plugin's error", func() error {
			_, err := e.a.UpdateContainer(context.Background(), &api.UpdateContainerRequest{Pod: pod, Container: ctr, LinuxResources: &api.LinuxResources{}})
			return err
		}, codes.FailedPrecondition, nil},
		{"the default validator's rejection", func() error {
			_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: needy, Container: testContainer("needy-c", needy)})
			return err
		}, codes.FailedPrecondition, adaptation.ErrRejected},
		{"a mandatory plugin's timeout", func() error {
			_, err := e.a.UpdatePodSandbox(context.Background(), &api.UpdatePodSandboxRequest{Pod: pod})
			return err
		}, codes.Unavailable, adaptation.ErrPluginTimeout},
		{"the caller's deadline", func() error {
			_, err := e.a.UpdatePodSandbox(past, &api.UpdatePodSandboxRequest{Pod: pod})
			return err
		}, codes.DeadlineExceeded, context.DeadlineExceeded},
		{"the caller's cancellation", func() error {
			_, err := e.a.UpdatePodSandbox(canceled, &api.UpdatePodSandboxRequest{Pod: pod})
			return err
		}, codes.Canceled, context.Canceled},
		{"a pod already removed", func() error { return e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: removed}) },
			codes.FailedPrecondition, adaptation.ErrRemoved},
	} {
		err := tt.err()
		if err == nil || tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v, want an error that is %v", tt.name, err, tt.is)
			continue
		}
		wrapped := fmt.Errorf("NRI RunPodSandbox failed: %w", err)
		st, ok := status.FromError(wrapped)
		if !ok || st.Code() != tt.want || st.Message() != wrapped.Error() {
			t.Errorf("%s: status %v (%v), want code %v with the whole text %q", tt.name, st, ok, tt.want, wrapped)
		}
	}
}
