// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestLateAnswerIsDroppedQuietly: a kept plugin that answers after its
// timeout leaves no error line on logrus' standard logger, where ttrpc's
// client would log the answer as one on an inactive stream, and its next
// call works. Not parallel: the standard logger is the process's.
func TestLateAnswerIsDroppedQuietly(t *testing.T) {
	std := captureStandardLog(t)
	const timeout = 2 * time.Second
	e := newEnv(t, adaptation.WithRequestTimeout(timeout))
	e.preinstall("10", "late", testplugin.Config{
		FailurePolicy: &testplugin.FailurePolicy{KeepConnected: true},
		Behaviours: map[string]testplugin.Behaviour{
			// Answered a second after the runtime stopped waiting...
			"RunPodSandbox": {Delay: (timeout + 500*time.Millisecond).String()},
			// ...and half a second before this next call's answer, which
			// ttrpc handles after the late one, on the same connection.
			"StopPodSandbox": {Delay: time.Second.String()},
		}})
	e.start()
	e.waitPlugins("10-late")

	pod := testPod("late-pod")
	if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatalf("RunPodSandbox: %v (keep_connected: a timeout does not fail it)", err)
	}
	if err := e.a.StopPodSandbox(context.Background(), &api.StopPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatalf("StopPodSandbox: %v", err)
	}
	e.waitPlugins("10-late")
	for _, en := range std.AllEntries() {
		if strings.Contains(en.Message, "inactive stream") {
			t.Errorf("logged on the standard logger: %s %q", en.Level, en.Message)
		}
	}
}
