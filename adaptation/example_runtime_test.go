// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/ocispec"
	"github.com/nrikit/nrikit/api"
)

// exampleRuntime is the smallest runtime that links nrikit: one mutex held
// around every call into NRI and taken again in SyncFn and UpdateFn, as in
// containerd and CRI-O.
type exampleRuntime struct {
	mu   sync.Mutex
	nri  *adaptation.Adaptation
	pods []*api.PodSandbox
	ctrs []*api.Container
}

// syncFn lists the runtime's pods and containers for a plugin that joins.
// Pods still being created may be listed with State:
// api.PodSandboxState_POD_SANDBOX_UNKNOWN. nrikit calls it holding no lock
// of its own: it may take the lock the runtime holds around the event
// methods.
func (r *exampleRuntime) syncFn(ctx context.Context, cb adaptation.SyncCB) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	updates, err := cb(ctx, r.pods, r.ctrs)
	if err != nil {
		return err
	}
	_, err = r.applyUpdates(updates)
	return err
}

// updateFn applies updates a plugin asks for on its own; it returns those
// that failed.
func (r *exampleRuntime) updateFn(_ context.Context, u []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.applyUpdates(u)
}

// applyUpdates hands each update to the cgroup code in the reference's
// shape: ToOCI never leaves CPU or Memory nil.
func (r *exampleRuntime) applyUpdates(updates []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
	for _, u := range updates {
		res := u.GetLinux().GetResources().ToOCI()
		_, _ = res.CPU, res.Memory // setCgroups(u.GetContainerId(), res)
	}
	return nil, nil
}

// createContainer is the runtime's CreateContainer: the plugins' merged
// adjustment goes into the container's OCI spec.
func (r *exampleRuntime) createContainer(ctx context.Context, pod *api.PodSandbox, spec *rspec.Spec) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctr := &api.Container{
		Id: "ctr0", PodSandboxId: pod.GetId(), Name: "app",
		State:  api.ContainerState_CONTAINER_CREATED,
		Mounts: api.FromOCIMounts(spec.Mounts),
		Linux: &api.LinuxContainer{
			Resources: api.FromOCILinuxResources(spec.Linux.Resources, spec.Annotations),
		},
	}
	rsp, err := r.nri.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	if err != nil {
		// undo, so that plugins that saw the creation release what they set aside
		_ = r.nri.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr})
		return err
	}
	applier := ocispec.Applier{} // the runtime's hooks, see "Applying adjustments"
	if err := applier.Apply(spec, rsp.GetAdjust()); err != nil {
		return err // the spec is unchanged
	}
	if _, err := r.applyUpdates(rsp.GetUpdate()); err != nil { // other containers
		return err
	}
	r.ctrs = append(r.ctrs, ctr)
	return nil
}

// memCap is an in-process plugin: it embeds api.PluginBase and implements
// only the event it takes.
type memCap struct{ api.PluginBase }

func (memCap) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	adj := &api.ContainerAdjustment{}
	adj.AddAnnotation("example.com/capped", "true")
	adj.SetLinuxMemoryLimit(256 << 20)
	return &api.CreateContainerResponse{Adjust: adj}, nil
}

// A runtime creates the Adaptation with its callbacks and the operator's
// settings, starts it, calls one method per lifecycle event and stops it.
func Example_runtime() {
	dir, err := os.MkdirTemp("", "nrikit-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	cfg := adaptation.DefaultConfig() // the operator's settings, from the runtime's config file
	cfg.SocketPath = dir + "/nri.sock"
	cfg.DisablePluginPath = true
	log := logrus.New()
	log.SetOutput(os.Stderr)

	r := &exampleRuntime{}
	opts := append(cfg.Options(),
		adaptation.WithLogger(log.WithField("component", "nri")),
		adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "memcap",
			Handler: &memCap{api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}}}),
	)
	r.nri, err = adaptation.New("myruntime", "v1.2.3", r.syncFn, r.updateFn, opts...)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := r.nri.Start(ctx); err != nil { // starts plugins, listens on the socket
		panic(err)
	}

	pod := &api.PodSandbox{Id: "pod0", Name: "web", Namespace: "default"}
	if err := r.nri.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		// undo: plugins that saw the pod get its stop and removal
		_ = r.nri.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
		panic(err)
	}
	spec := &rspec.Spec{Linux: &rspec.Linux{}}
	if err := r.createContainer(ctx, pod, spec); err != nil {
		panic(err)
	}
	fmt.Println(spec.Annotations["example.com/capped"], *spec.Linux.Resources.Memory.Limit)

	// Teardown never fails.
	_ = r.nri.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})

	// On shutdown: plugins get Shutdown with a reason, then their connections close.
	stopCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	fmt.Println(r.nri.Stop(stopCtx))
	// Output:
	// true 268435456
	// <nil>
}
