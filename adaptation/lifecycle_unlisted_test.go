// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// unlistedCase is a runtime that relays only some of its pods' and
// containers' events: cycle drives pod i (and its container) through what
// the runtime does, and keeps it, or not.
type unlistedCase struct {
	name  string
	cycle func(r *runtimeDouble, pod *api.PodSandbox, ctr *api.Container, keep bool, rng *rand.Rand) error
}

var unlistedCases = []unlistedCase{
	{"relays only CreateContainer", createOnlyCycle},
	{"drops random teardown events", droppedTeardownCycle},
	{"gives up creations after plugins adjusted them", givenUpCreationCycle},
}

// TestJoiningPluginToldWhatTheRuntimeLists: whatever events the runtime
// relays, a plugin that joins after pods and containers came and went is
// told exactly what the runtime's SyncFn lists, and nothing more after its
// snapshot: not a container the runtime no longer has, not one whose pod it
// was not told of. A plugin joining after more came and went (when the
// first join's leftovers have been forgotten) is told exactly the lists
// too, and a plugin that was there all along still hears the teardown of
// what lives.
func TestJoiningPluginToldWhatTheRuntimeLists(t *testing.T) {
	for _, c := range unlistedCases {
		t.Run(c.name, func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 0))
			e := newEnv(t)
			r := newRuntimeDouble(t, e, false, false)
			e.start()
			e.external("10", "early", testplugin.Config{Events: notValidating})
			e.waitPlugins("10-early")

			next := 0
			churn := func(n int) {
				for end := next + n; next < end; next++ {
					pod := testPod(fmt.Sprintf("p%03d", next))
					if err := c.cycle(r, pod, testContainer(pod.GetId()+"-c", pod), next%4 == 0, rng); err != nil {
						t.Fatalf("pod %s: %v", pod.GetId(), err)
					}
				}
			}
			churn(16)
			e.external("20", "late", testplugin.Config{Events: notValidating})
			e.waitPlugins("10-early", "20-late")
			checkToldLists(t, e, "late", r.live())

			churn(16)
			e.external("30", "later", testplugin.Config{Events: notValidating})
			e.waitPlugins("10-early", "20-late", "30-later")
			live := r.live()
			checkToldLists(t, e, "later", live)

			tearDownLive(t, r)
			checkRemovals(t, e, "later", live, true)
			checkRemovals(t, e, "late", live, false)
			checkRemovals(t, e, "early", live, false)
		})
	}
}

// checkToldLists: the plugin's only message is its snapshot, which holds
// exactly the pods and containers listed.
func checkToldLists(t *testing.T, e *env, name string, listed []string) {
	t.Helper()
	recs := slices.DeleteFunc(testplugin.Of(e.records(), name), func(r testplugin.Record) bool {
		return r.Event == "Configure"
	})
	if len(recs) != 1 || recs[0].Event != "Synchronize" {
		t.Fatalf("%s got %v, want only its snapshot", name, e.seen(name))
	}
	got := slices.Concat(recs[0].Pods, recs[0].Containers)
	slices.Sort(got)
	if !slices.Equal(got, listed) {
		t.Errorf("%s's snapshot holds\n%v\nthe runtime lists\n%v", name, got, listed)
	}
}

// checkRemovals: the removal of each of ids reached the plugin exactly
// once; with only, no other removal did.
func checkRemovals(t *testing.T, e *env, name string, ids []string, only bool) {
	t.Helper()
	var got []string
	for _, r := range testplugin.Of(e.records(), name) {
		id := r.Pod
		switch r.Event {
		case "RemovePodSandbox":
		case "RemoveContainer":
			id = r.Container
		default:
			continue
		}
		if only || slices.Contains(ids, id) {
			got = append(got, id)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, ids) {
		t.Errorf("%s heard the removal of\n%v\nwant\n%v", name, got, ids)
	}
}

// tearDownLive stops and removes every pod and container the runtime has,
// relaying every event.
func tearDownLive(t *testing.T, r *runtimeDouble) {
	ctx := context.Background()
	for _, pod := range r.listPods() {
		for _, ctr := range r.listContainers() {
			if ctr.GetPodSandboxId() != pod.GetId() {
				continue
			}
			must(t, r.event(func() error {
				_, err := r.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
				return err
			}))
			must(t, r.event(func() error {
				return r.removeAround(ctr.GetId(), true, func() error {
					return r.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr})
				})
			}))
		}
		must(t, r.event(func() error { return r.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}) }))
		must(t, r.event(func() error {
			return r.removeAround(pod.GetId(), true, func() error {
				return r.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
			})
		}))
	}
}

// createOnlyCycle is Docker Engine's: only the container's creation is
// relayed; the runtime stores its pod and container (before or after the
// call, at random), and a container that is not kept goes away silently,
// as with docker run --rm.
func createOnlyCycle(r *runtimeDouble, pod *api.PodSandbox, ctr *api.Container, keep bool, rng *rand.Rand) error {
	before := rng.IntN(2) == 0
	err := r.event(func() error {
		r.putPod(pod, ready)
		if before {
			r.putContainer(ctr, api.ContainerState_CONTAINER_CREATED)
		}
		_, err := r.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: ctr})
		r.putContainer(ctr, api.ContainerState_CONTAINER_CREATED)
		return err
	})
	if err != nil || keep {
		return err
	}
	return r.event(func() error {
		r.drop(ctr.GetId())
		r.drop(pod.GetId())
		return nil
	})
}

// droppedTeardownCycle relays a pod's and its container's whole life, but
// each teardown event only at random: the store forgets them either way.
func droppedTeardownCycle(r *runtimeDouble, pod *api.PodSandbox, ctr *api.Container, keep bool, rng *rand.Rand) error {
	if err := r.cycle(pod.GetId(), rng.IntN(2), true, func(...string) {}); err != nil {
		return err
	}
	if keep {
		return nil
	}
	ctx := context.Background()
	steps := []func() error{
		func() error {
			_, err := r.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
			return err
		},
		func() error { return r.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}) },
		func() error { return r.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}) },
		func() error { return r.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}) },
	}
	dropped := 0
	for i, step := range steps {
		if rng.IntN(2) == 0 || i == len(steps)-1 && dropped == 0 {
			dropped++
			step = func() error { return nil }
		}
		if err := r.event(step); err != nil {
			return err
		}
		switch i {
		case 1:
			r.drop(ctr.GetId())
		case 3:
			r.drop(pod.GetId())
		}
	}
	return nil
}

// givenUpCreationCycle relays the pod's creation, then its container's,
// which the runtime gives up after the plugins adjusted it: the container
// is never stored, and no event undoes it. A pod not kept is then torn
// down with its events relayed.
func givenUpCreationCycle(r *runtimeDouble, pod *api.PodSandbox, ctr *api.Container, keep bool, rng *rand.Rand) error {
	ctx := context.Background()
	err := r.event(func() error {
		err := r.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
		r.putPod(pod, ready)
		return err
	})
	if err != nil {
		return err
	}
	err = r.event(func() error {
		_, err := r.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
		return err
	})
	if err != nil || keep || rng.IntN(2) == 0 {
		return err
	}
	if err := r.event(func() error { return r.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}) }); err != nil {
		return err
	}
	return r.event(func() error {
		return r.removeAround(pod.GetId(), true, func() error {
			return r.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
		})
	})
}

// TestLeftOutPodToldBeforeItsNextEvent: a pod whose RunPodSandbox went out
// before the plugin connected, that the runtime stores only after its
// listing, is not in the plugin's snapshot; the plugin hears its
// RunPodSandbox right before the next event for it, here the creation of
// its first container.
func TestLeftOutPodToldBeforeItsNextEvent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.start()
	pod := testPod("p")
	ctr := testContainer("p-c", pod)
	must(t, e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}))
	e.external("10", "late", testplugin.Config{Events: notValidating})
	e.waitPlugins("10-late")
	e.store.set([]*api.PodSandbox{withState(testPod("p"), ready)}, nil)
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	must(t, err)
	want := []string{"Synchronize[][]", "RunPodSandbox:p", "CreateContainer:p-c"}
	if got := e.seen("late"); !slices.Equal(got, want) {
		t.Fatalf("plugin saw %v, want %v", got, want)
	}
}
