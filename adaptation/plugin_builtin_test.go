// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// builtin makes an in-process plugin that logs to the env's event log.
func (e *env) builtin(idx, name string, cfg testplugin.Config) adaptation.BuiltinPlugin {
	e.t.Helper()
	cfg = e.plugin(idx, name, cfg)
	h, err := testplugin.NewHandler(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { h.Close() })
	return adaptation.BuiltinPlugin{Index: idx, Name: name, Config: "builtin config", Handler: h}
}

func TestBuiltinPluginOrderedWithOthers(t *testing.T) {
	probe := newEnv(t) // only for its paths and event log
	e := newEnvAt(t, probe, adaptation.WithBuiltinPlugins(
		probe.builtin("15", "inproc", testplugin.Config{Annotations: map[string]string{"in.example/a": "1"}}),
	))
	e.preinstall("10", "first", testplugin.Config{})
	e.preinstall("20", "last", testplugin.Config{})
	e.start()
	e.waitPlugins("10-first", "15-inproc", "20-last")

	created := runLifecycle(t, e.a, "pb")
	if got := e.events("inproc"); !equal(got, fullLifecycleEvents) {
		t.Errorf("in-process plugin got %v", got)
	}
	if created[0].GetAdjust().GetAnnotations()["in.example/a"] != "1" {
		t.Errorf("in-process adjustment missing: %v", created[0].GetAdjust())
	}
	if info := e.a.Plugins()[1]; info.Kind != "builtin" {
		t.Errorf("Plugins()[1] = %+v, want the builtin", info)
	}
}

func TestBuiltinLegacyAndNeither(t *testing.T) {
	probe := newEnv(t)
	e := newEnvAt(t, probe, adaptation.WithBuiltinPlugins(
		probe.builtin("10", "oldinproc", testplugin.Config{Legacy: true}),
		probe.builtin("20", "broken", testplugin.Config{Legacy: true, NoStateChange: true, Events: "stoppodsandbox,poststartcontainer"}),
	))
	e.start()
	e.waitPlugins("10-oldinproc", "20-broken")
	runLifecycle(t, e.a, "pl") // teardown and notification errors of 20-broken never fail it
	if got := e.events("oldinproc"); !equal(got, fullLifecycleEvents) {
		t.Errorf("legacy in-process plugin got %v", got)
	}
	if deps := e.a.Deprecations(); len(deps) != 1 || deps[0].Plugin != "10-oldinproc" {
		t.Errorf("Deprecations() = %+v", deps)
	}
}

func TestBuiltinValidation(t *testing.T) {
	if _, err := adaptation.New("rt", "v", nil, nil, adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "1", Name: "x"})); err == nil {
		t.Fatal("a builtin plugin with a bad index was accepted")
	}
	if _, err := adaptation.New("rt", "v", nil, nil, adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "x"})); err == nil {
		t.Fatal("a builtin plugin without a handler was accepted")
	}
}

// rejecter is an in-process validator that rejects every adjustment.
type rejecter struct{ api.PluginService }

func (rejecter) Configure(context.Context, *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return &api.ConfigureResponse{Events: int32(api.MaskOf(api.Event_VALIDATE_CONTAINER_ADJUSTMENT))}, nil
}

func (rejecter) Synchronize(context.Context, *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{}, nil
}

func (rejecter) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	owner := req.GetOwners().GetOwners()[req.GetContainer().GetId()].GetCompound()[int32(api.Field_Annotations)].GetOwners()["x"]
	return &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: "annotation x owned by " + owner}, nil
}

func TestValidatorRejects(t *testing.T) {
	e := newEnv(t, adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "90", Name: "policy", Handler: rejecter{}}))
	e.preinstall("10", "setter", testplugin.Config{Annotations: map[string]string{"x": "y"}})
	e.start()
	e.waitPlugins("10-setter", "90-policy")
	pod := testPod("pv")
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c", pod)})
	if !errors.Is(err, adaptation.ErrRejected) || !strings.Contains(err.Error(), "annotation x owned by 10-setter") {
		t.Fatalf("CreateContainer = %v, want a rejection that names the owner", err)
	}
}

func TestUnsolicitedUpdates(t *testing.T) {
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	conn := dialSocket(t, e.socket)
	p, err := testplugin.Start(ctx, conn, testplugin.Config{Name: "upd", Index: "10"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.waitPlugins("10-upd")
	update := &api.ContainerUpdate{ContainerId: "c1", Linux: &api.LinuxContainerUpdate{
		Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0-1"}}}}
	unnamed := &api.ContainerUpdate{IgnoreFailure: true}
	failed, err := p.UpdateContainers(ctx, []*api.ContainerUpdate{update, nil, unnamed})
	// On the wire nil arrives as an empty update: it names no container too.
	if err != nil || len(failed) != 2 || failed[0].GetContainerId() != "" || !failed[1].GetIgnoreFailure() {
		t.Fatalf("UpdateContainers = %v, %v; want only the updates naming no container failed", failed, err)
	}
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if len(e.store.updates) != 1 || len(e.store.updates[0]) != 1 || e.store.updates[0][0].GetLinux().GetResources().GetCpu().GetCpus() != "0-1" {
		t.Fatalf("runtime got updates %v", e.store.updates)
	}
}

func TestStartTwice(t *testing.T) {
	e := newEnv(t)
	e.start()
	if err := e.a.Start(context.Background()); !errors.Is(err, adaptation.ErrAlreadyStarted) {
		t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
	}
}

// stubbornHandler's UpdateContainer ignores its deadline until released, and
// counts how many calls run at once.
type stubbornHandler struct {
	*testplugin.Handler
	release chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	running int
	most    int
}

func (h *stubbornHandler) UpdateContainer(ctx context.Context, r *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	h.mu.Lock()
	h.running++
	h.most = max(h.most, h.running)
	h.mu.Unlock()
	defer func() { h.mu.Lock(); h.running--; h.mu.Unlock() }()
	h.entered <- struct{}{}
	<-h.release
	return h.Handler.UpdateContainer(ctx, r)
}

// An in-process handler that ignores its deadline is not given a second
// request while it still runs: that request times out waiting, as it would
// for a remote plugin that is stuck.
func TestBuiltinHungHandlerGetsOneRequestAtATime(t *testing.T) {
	probe := newEnv(t)
	keep := &testplugin.FailurePolicy{KeepConnected: true}
	inner := probe.builtin("10", "stubborn", testplugin.Config{FailurePolicy: keep})
	h := &stubbornHandler{Handler: inner.Handler.(*testplugin.Handler), release: make(chan struct{}), entered: make(chan struct{}, 4)}
	inner.Handler = h
	e := newEnvAt(t, probe, adaptation.WithBuiltinPlugins(inner), adaptation.WithRequestTimeout(300*time.Millisecond))
	e.start()
	e.waitPlugins("10-stubborn")

	ctx := context.Background()
	pod := testPod("ph")
	ctr := testContainer("ph-c1", pod)
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Fatal(err)
	}
	update := func() {
		t.Helper()
		if _, err := e.a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: ctr}); err != nil {
			t.Fatalf("UpdateContainer: %v (keep_connected: a timeout must not fail it)", err)
		}
	}
	update() // times out inside the handler, which keeps running
	<-h.entered
	update() // times out waiting for the first call to end
	close(h.release)
	update() // runs once the stuck call has returned
	<-h.entered

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.most != 1 {
		t.Errorf("%d calls ran at once in one in-process plugin, want 1", h.most)
	}
	if got := len(h.entered); got != 0 {
		t.Errorf("the handler was entered %d more times than expected", got)
	}
	if ids := pluginIDs(e.a); !equal(ids, []string{"10-stubborn"}) {
		t.Errorf("plugins = %v, want the keep_connected plugin kept", ids)
	}
}
