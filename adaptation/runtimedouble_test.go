// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// runtimeDouble locks as containerd and CRI-O do around NRI: one mutex held
// across every call into an event method, taken by SyncFn (which lists its
// store and calls back holding it) and by UpdateFn. Its store has a lock of
// its own, as a runtime's database does.
type runtimeDouble struct {
	t *testing.T
	a *adaptation.Adaptation
	// unlockedList makes SyncFn list and call back without taking mu, with
	// a yield between listing pods, listing containers and calling back.
	unlockedList bool
	// blocks takes BlockPluginSync before mu around every event, as
	// containerd does around its CRI operations.
	blocks bool

	mu sync.Mutex // the runtime's NRI lock

	// With unlockedList, while busy is set, SyncFn waits for an event to
	// complete after each listing, so that events fall between its listing
	// and its call back; quiet ends those waits once the events stop.
	busy    atomic.Bool
	quiet   chan struct{}
	stepMu  sync.Mutex
	stepped chan struct{} // closed and replaced after every event

	storeMu sync.Mutex
	pods    map[string]*api.PodSandbox
	ctrs    map[string]*api.Container

	// syncing, when set, is closed as SyncFn starts, before it takes mu.
	syncing chan struct{}

	held    atomic.Int64 // BlockPluginSync blocks held
	syncs   atomic.Int64
	updates atomic.Int64
}

func newRuntimeDouble(t *testing.T, e *env, unlockedList, blocks bool) *runtimeDouble {
	r := &runtimeDouble{t: t, a: e.a, unlockedList: unlockedList, blocks: blocks,
		pods: map[string]*api.PodSandbox{}, ctrs: map[string]*api.Container{},
		quiet: make(chan struct{}), stepped: make(chan struct{})}
	e.store.runtime = r
	return r
}

func (r *runtimeDouble) sync(ctx context.Context, cb adaptation.SyncCB) error {
	if r.held.Load() > 0 {
		r.t.Error("SyncFn called while a BlockPluginSync block is held")
	}
	if r.syncs.Add(1) == 1 && r.syncing != nil {
		close(r.syncing)
	}
	if r.unlockedList {
		pods := r.listPods()
		r.awaitEvents(2) // a pod's creation and its container's, say
		ctrs := r.listContainers()
		r.awaitEvents(1)
		_, err := cb(ctx, pods, ctrs)
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := cb(ctx, r.listPods(), r.listContainers())
	return err
}

func (r *runtimeDouble) update(_ context.Context, updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	var failed []*api.ContainerUpdate
	for _, u := range updates {
		if r.ctrs[u.GetContainerId()] == nil {
			failed = append(failed, u)
		}
	}
	r.updates.Add(1)
	return failed, nil
}

// event calls into nrikit as the runtime does: under its lock, and with
// blocks, inside a BlockPluginSync taken first.
func (r *runtimeDouble) event(fn func() error) error {
	if r.blocks {
		b := r.a.BlockPluginSync()
		r.held.Add(1)
		defer func() {
			r.held.Add(-1)
			b.Unblock()
		}()
	}
	defer r.step()
	r.mu.Lock()
	defer r.mu.Unlock()
	return fn()
}

func (r *runtimeDouble) step() {
	r.stepMu.Lock()
	defer r.stepMu.Unlock()
	close(r.stepped)
	r.stepped = make(chan struct{})
}

// awaitEvents waits for n events to complete, while pods cycle.
func (r *runtimeDouble) awaitEvents(n int) {
	for ; n > 0 && r.busy.Load(); n-- {
		r.stepMu.Lock()
		next := r.stepped
		r.stepMu.Unlock()
		select {
		case <-next:
		case <-r.quiet:
			return
		}
	}
}

func (r *runtimeDouble) putPod(pod *api.PodSandbox, st api.PodSandboxState) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	c := proto.Clone(pod).(*api.PodSandbox)
	c.State = st
	r.pods[pod.GetId()] = c
}

func (r *runtimeDouble) putContainer(ctr *api.Container, st api.ContainerState) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	c := proto.Clone(ctr).(*api.Container)
	c.State = st
	r.ctrs[ctr.GetId()] = c
}

func (r *runtimeDouble) drop(id string) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	delete(r.pods, id)
	delete(r.ctrs, id)
}

func (r *runtimeDouble) listPods() []*api.PodSandbox {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	out := make([]*api.PodSandbox, 0, len(r.pods))
	for _, p := range r.pods {
		out = append(out, p)
	}
	return out
}

func (r *runtimeDouble) listContainers() []*api.Container {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	out := make([]*api.Container, 0, len(r.ctrs))
	for _, c := range r.ctrs {
		out = append(out, c)
	}
	return out
}

// live lists the ids of the pods and containers in the store.
func (r *runtimeDouble) live() []string {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	var ids []string
	for id := range r.pods {
		ids = append(ids, id)
	}
	for id := range r.ctrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// cycle drives one pod with one container through its life, each step a
// separate call under the runtime's lock. The store is updated before or
// after the NRI call, by i, as runtimes differ; keep leaves both running.
// teardown is called as their teardown begins.
func (r *runtimeDouble) cycle(id string, i int, keep bool, teardown func(ids ...string)) error {
	ctx := context.Background()
	pod := testPod(id)
	ctr := testContainer(id+"-c", pod)
	before := i%2 == 0
	steps := []func() error{
		func() error {
			if before {
				r.putPod(pod, unknown)
			}
			err := r.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
			r.putPod(pod, ready)
			return err
		},
		func() error {
			if before {
				r.putContainer(ctr, api.ContainerState_CONTAINER_CREATED)
			}
			_, err := r.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
			r.putContainer(ctr, api.ContainerState_CONTAINER_CREATED)
			return err
		},
		func() error {
			r.putContainer(ctr, api.ContainerState_CONTAINER_RUNNING)
			return r.a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: ctr})
		},
	}
	if !keep {
		steps = append(steps,
			func() error {
				teardown(id, ctr.GetId())
				_, err := r.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
				r.putContainer(ctr, api.ContainerState_CONTAINER_STOPPED)
				return err
			},
			func() error {
				return r.removeAround(ctr.GetId(), before, func() error {
					return r.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr})
				})
			},
			func() error {
				err := r.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod})
				r.putPod(pod, api.PodSandboxState_POD_SANDBOX_NOT_READY)
				return err
			},
			func() error {
				return r.removeAround(id, before, func() error {
					return r.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
				})
			},
		)
	}
	for _, step := range steps {
		if err := r.event(step); err != nil {
			return err
		}
	}
	return nil
}

// removeAround drops id from the store before or after the NRI call.
func (r *runtimeDouble) removeAround(id string, before bool, call func() error) error {
	if before {
		r.drop(id)
	}
	err := call()
	r.drop(id)
	return err
}
