// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestTTRPCClientOptionsStillRun: nrikit calls plugins with its own client,
// but a runtime that passes ttrpc client options gets ttrpc's client, so
// that its interceptors see every call to the plugin.
func TestTTRPCClientOptionsStillRun(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	intercept := func(ctx context.Context, req *ttrpc.Request, rsp *ttrpc.Response, info *ttrpc.UnaryClientInfo, invoker ttrpc.Invoker) error {
		mu.Lock()
		seen = append(seen, req.Method)
		mu.Unlock()
		return invoker(ctx, req, rsp)
	}
	e := newEnv(t, adaptation.WithTTRPCOptions([]ttrpc.ClientOpts{ttrpc.WithUnaryClientInterceptor(intercept)}, nil))
	e.preinstall("10", "seen", testplugin.Config{})
	e.start()
	e.waitPlugins("10-seen")

	pod := testPod("opts-pod")
	if _, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("opts-ctr", pod)}); err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range []string{"Configure", "Synchronize", "CreateContainer"} {
		if !slices.Contains(seen, m) {
			t.Errorf("the runtime's ttrpc client interceptor did not see %s; it saw %v", m, seen)
		}
	}
}
