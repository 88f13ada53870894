// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestSyncReconcilesEventsBetweenListingAndCallback: a runtime whose SyncFn
// lists without any lock may call back with lists that events relayed
// meanwhile made stale. The joining plugin still hears of what lives exactly
// once, pods before their containers, of no removed pod or container, and of
// the stops it missed right after its snapshot.
func TestSyncReconcilesEventsBetweenListingAndCallback(t *testing.T) {
	tests := []struct {
		name    string
		before  func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) // before the listing
		between func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) // after it, before the callback
		want    []string
	}{
		{"stopped in between", runPodAndContainer, stopContainerAndPod,
			[]string{"Synchronize[p:READY][c]", "StopContainer:c", "StopPodSandbox:p", "RemoveContainer:c", "RemovePodSandbox:p"}},
		{"removed in between", runPodAndContainer, func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
			stopContainerAndPod(t, e, pod, ctr)
			must(t, e.a.RemovePodSandbox(context.Background(), &api.RemovePodSandboxRequest{Pod: pod}))
		}, []string{"Synchronize[][]"}},
		{"created in between", func(*testing.T, *env, *api.PodSandbox, *api.Container) {}, runPodAndContainer,
			[]string{"Synchronize[p:READY][c]", "StopContainer:c", "RemoveContainer:c", "StopPodSandbox:p", "RemovePodSandbox:p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.start()
			pod := testPod("p")
			ctr := testContainer("c", pod)
			tt.before(t, e, pod, ctr)
			pods := storePods(e, pod)
			listing, resume := make(chan struct{}), make(chan struct{})
			e.store.mu.Lock()
			e.store.listPods = func() []*api.PodSandbox {
				close(listing)
				<-resume
				return pods
			}
			e.store.mu.Unlock()
			e.external("10", "late", testplugin.Config{})
			awaitClosed(t, listing, "the runtime's SyncFn to list")
			tt.between(t, e, pod, ctr)
			close(resume)
			e.waitPlugins("10-late")
			teardown(t, e, pod, ctr)
			if got := e.seen("late"); !slices.Equal(got, tt.want) {
				t.Fatalf("plugin saw\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

// storePods is what the runtime's store lists: the pod once it was created.
func storePods(e *env, pod *api.PodSandbox) []*api.PodSandbox {
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if len(e.store.ctrs) == 0 {
		return nil
	}
	return []*api.PodSandbox{withState(testPod(pod.GetId()), ready)}
}

func runPodAndContainer(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
	ctx := context.Background()
	must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	must(t, err)
	e.store.set(nil, []*api.Container{ctr})
}

func stopContainerAndPod(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
	ctx := context.Background()
	_, err := e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
	must(t, err)
	must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
}

func teardown(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
	ctx := context.Background()
	must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}))
	must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
}
