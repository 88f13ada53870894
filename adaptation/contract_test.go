// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestLifecycleContract checks, for a modern and a legacy plugin, the pod
// and container lifecycle contract nrikit enforces for plugins.
func TestLifecycleContract(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		drive func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container)
		want  []string
	}{
		{"repeated stop is relayed once", func(t *testing.T, e *env, pod *api.PodSandbox, _ *api.Container) {
			must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
			must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
		}, []string{"RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"remove without stop is preceded by a stop", func(t *testing.T, e *env, pod *api.PodSandbox, _ *api.Container) {
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
		}, []string{"RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"container remove without stop is preceded by a stop", func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
			_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
			must(t, err)
			must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}))
			_, err = e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
			must(t, err)
		}, []string{"RunPodSandbox:p", "CreateContainer:c", "StopContainer:c", "RemoveContainer:c"}},
		{"a pod's stop and removal come after its containers'", func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
			_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
			must(t, err)
			must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
		}, []string{"RunPodSandbox:p", "CreateContainer:c", "StopContainer:c", "StopPodSandbox:p", "RemoveContainer:c", "RemovePodSandbox:p"}},
		{"no teardown of a container never created in a pod created since", func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
			_, err := e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
			must(t, err)
			must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}))
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
		}, []string{"RunPodSandbox:p", "StopPodSandbox:p", "RemovePodSandbox:p"}},
		{"nothing after the pod's removal", func(t *testing.T, e *env, pod *api.PodSandbox, ctr *api.Container) {
			_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
			must(t, err)
			must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
			if err := e.a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: ctr}); !errors.Is(err, adaptation.ErrRemoved) {
				t.Errorf("StartContainer in a removed pod = %v, want ErrRemoved", err)
			}
			other := testContainer("c2", pod)
			if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: other}); !errors.Is(err, adaptation.ErrRemoved) {
				t.Errorf("CreateContainer in a removed pod = %v, want ErrRemoved", err)
			}
			_, err = e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
			must(t, err) // teardown of what is gone is quietly dropped
			must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}))
			must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
		}, []string{"RunPodSandbox:p", "CreateContainer:c", "StopContainer:c", "RemoveContainer:c", "StopPodSandbox:p", "RemovePodSandbox:p"}},
	}
	for _, kind := range []struct {
		name   string
		legacy bool
	}{{"modern", false}, {"legacy", true}} {
		for _, tt := range tests {
			t.Run(kind.name+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t)
				e.preinstall("10", "watcher", testplugin.Config{Legacy: kind.legacy, Events: "all"})
				e.start()
				pod := testPod("p")
				must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
				tt.drive(t, e, pod, testContainer("c", pod))
				got := slices.DeleteFunc(e.seen("watcher"), func(s string) bool { return s == "Synchronize[][]" })
				if !slices.Equal(got, tt.want) {
					t.Fatalf("plugin saw\n%v\nwant\n%v", got, tt.want)
				}
			})
		}
	}
}

// TestSnapshotLeavesOutContainersTheRuntimeDoesNotList: a container whose
// creation fan-out finished before the plugin connected, but that the
// runtime's store does not list (a creation the runtime gave up after the
// plugins adjusted it, with no event to undo it), does not reach a joining
// plugin: the runtime's lists are the truth for what existed before it
// connected. Nor does that container's later teardown. (A container created
// while the plugin joins is added: TestSyncReconcilesEventsBetweenListingAndCallback.)
func TestSnapshotLeavesOutContainersTheRuntimeDoesNotList(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.start()
	pod := testPod("p")
	ctr := testContainer("c", pod)
	must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	must(t, err)
	e.store.set([]*api.PodSandbox{withState(testPod("p"), ready)}, nil)
	e.external("10", "late", testplugin.Config{})
	e.waitPlugins("10-late")
	must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}))
	want := []string{"Synchronize[p:READY][]"}
	if got := e.seen("late"); !slices.Equal(got, want) {
		t.Fatalf("plugin saw %v, want %v", got, want)
	}
}

// failsOnce is an in-process plugin whose first CreateContainer fails.
type failsOnce struct {
	api.PluginBase
	calls atomic.Int32
}

func (f *failsOnce) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if f.calls.Add(1) == 1 {
		return nil, errors.New("not yet")
	}
	return &api.CreateContainerResponse{}, nil
}

// TestFailedCreationRetriedWithTheSameID: a runtime may retry a creation
// that failed under the same id, as the reference's own suite does. Every
// plugin hears the retry, also those that heard the failed attempt, and a
// required plugin is then found among those that handled it.
func TestFailedCreationRetriedWithTheSameID(t *testing.T) {
	ctx := context.Background()
	flaky := &failsOnce{PluginBase: api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}}
	e := newEnv(t,
		adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "30", Name: "flaky", Handler: flaky}),
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"watcher"}}))
	e.preinstall("10", "watcher", testplugin.Config{Events: "all"})
	e.start()
	e.waitPlugins("10-watcher", "30-flaky")
	pod := testPod("p")
	must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	ctr := testContainer("c", pod)

	if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err == nil {
		t.Fatal("the first creation succeeded; 30-flaky fails it")
	}
	if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
	got := slices.DeleteFunc(e.seen("watcher"), func(s string) bool { return s == "Synchronize[][]" })
	want := []string{"RunPodSandbox:p", "CreateContainer:c", "CreateContainer:c", "StopContainer:c",
		"RemoveContainer:c", "StopPodSandbox:p", "RemovePodSandbox:p"}
	if !slices.Equal(got, want) {
		t.Fatalf("plugin saw\n%v\nwant\n%v", got, want)
	}
}
