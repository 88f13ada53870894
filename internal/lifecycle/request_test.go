// SPDX-License-Identifier: Apache-2.0

// Unit tests of the pod and container a request names.

package lifecycle

import (
	"testing"

	"github.com/nrikit/nrikit/api"
)

func TestRequestIDs(t *testing.T) {
	pod := &api.PodSandbox{Id: "p"}
	ctr := &api.Container{Id: "c", PodSandboxId: "q"}
	tests := []struct {
		name       string
		req        any
		pod, ctrID string
	}{
		{"pod event", &api.StopPodSandboxRequest{Pod: pod}, "p", ""},
		{"container event", &api.StartContainerRequest{Pod: pod, Container: ctr}, "p", "c"},
		{"container event without its pod", &api.StartContainerRequest{Container: ctr}, "q", "c"},
		{"naming nothing", &api.UpdatePodSandboxRequest{}, "", ""},
		{"not a request", "x", "", ""},
		{"nil", nil, "", ""},
	}
	for _, tt := range tests {
		if got := PodID(tt.req); got != tt.pod {
			t.Errorf("%s: PodID = %q, want %q", tt.name, got, tt.pod)
		}
		if got := ContainerID(tt.req); got != tt.ctrID {
			t.Errorf("%s: ContainerID = %q, want %q", tt.name, got, tt.ctrID)
		}
	}
}
