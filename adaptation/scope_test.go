// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// allowing lets the plugin key change only the classes allow.
func allowing(key string, allow ...string) adaptation.Option {
	if allow == nil {
		allow = []string{}
	}
	return adaptation.WithPluginSettings(key, adaptation.PluginSettings{Allow: allow})
}

// annotatesAndSetsEnv is a plugin that adds an annotation and an
// environment variable to every container it creates.
var annotatesAndSetsEnv = testplugin.Config{Events: "createcontainer",
	Annotations: map[string]string{"scoped.example/a": "1"}, Env: map[string]string{"SCOPED": "1"}}

// TestScopeRefusesAnAdjustmentOutsideIt: a plugin allowed only env that
// adds an annotation fails the creation, naming it, annotations and the
// setting, as a validator's rejection does, and stays connected; one
// allowed both has both applied. Both show their scope in PluginInfo and
// in Status.
func TestScopeRefusesAnAdjustmentOutsideIt(t *testing.T) {
	ctx := context.Background()
	pod := testPod("scoped")

	e := newEnv(t, allowing("10-envonly", "env"))
	e.start()
	e.external("10", "envonly", annotatesAndSetsEnv)
	e.waitPlugins("10-envonly")
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("c1", pod)})
	var perr *adaptation.PluginError
	if !errors.Is(err, adaptation.ErrOutOfScope) || !errors.Is(err, adaptation.ErrRejected) || !errors.As(err, &perr) ||
		perr.Plugin != "10-envonly" || perr.Op != "CreateContainer" {
		t.Fatalf("CreateContainer = %v, want a *PluginError of 10-envonly matching ErrOutOfScope and ErrRejected", err)
	}
	for _, want := range []string{"annotations, not in its allow list [env]", `plugin_settings."10-envonly".allow`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if got := pluginInfo(t, e.a)["10-envonly"]; !slices.Equal(got.Allow, []string{"env"}) || got.SettingsKey != "10-envonly" {
		t.Errorf("10-envonly's PluginInfo: allow %v from %q, want [env] from 10-envonly (and still connected)", got.Allow, got.SettingsKey)
	}
	line := e.waitLoggedLine("nrikit: plugin connected", logrus.Fields{"plugin": "10-envonly"})
	if got, _ := line[0].Data["allow"].([]string); !slices.Equal(got, []string{"env"}) {
		t.Errorf("the plugin connected line says allow %v, want [env]", line[0].Data["allow"])
	}
	if b, err := json.Marshal(e.a.Status().Plugins); err != nil || !strings.Contains(string(b), `"settings_key":"10-envonly"`) ||
		!strings.Contains(string(b), `"allow":["env"]`) {
		t.Errorf("Status' plugins %s (%v) do not show the scope and its key", b, err)
	}

	both := newEnv(t, allowing("20-both", "annotations", "env"))
	both.start()
	both.external("20", "both", annotatesAndSetsEnv)
	both.external("30", "free", testplugin.Config{Events: "createcontainer"})
	both.waitPlugins("20-both", "30-free")
	rsp, err := both.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("c1", pod)})
	must(t, err)
	if rsp.GetAdjust().GetAnnotations()["scoped.example/a"] != "1" ||
		!slices.ContainsFunc(rsp.GetAdjust().GetEnv(), func(kv *api.KeyValue) bool { return kv.Key == "SCOPED" }) {
		t.Errorf("adjustment %v, want 20-both's annotation and env", rsp.GetAdjust())
	}
	info := pluginInfo(t, both.a)
	if !slices.Equal(info["20-both"].Allow, []string{"annotations", "env"}) || info["30-free"].Allow != nil {
		t.Errorf("allow: 20-both %v, 30-free %v; want [annotations env] and nil (everything)", info["20-both"].Allow, info["30-free"].Allow)
	}
}

// TestScopeOfUpdates: a plugin not allowed resources fails the
// UpdateContainer it changes, naming resources; the updates of other
// containers that a plugin not allowed updates returns from StopContainer
// are dropped (a teardown never fails); its updates from Synchronize are
// not applied, and it joins.
func TestScopeOfUpdates(t *testing.T) {
	ctx := context.Background()
	pod := testPod("upd")
	var mu sync.Mutex
	var synced [][]*api.ContainerUpdate
	e := newEnv(t, allowing("10-limiter", "env"), allowing("20-stopper"))
	e.store.syncWith = func(ctx context.Context, cb adaptation.SyncCB) error {
		u, err := cb(ctx, nil, nil)
		mu.Lock()
		synced = append(synced, u)
		mu.Unlock()
		return err
	}
	e.start()
	e.external("10", "limiter", testplugin.Config{Events: "updatecontainer", UpdateMemoryLimit: 1 << 30})
	e.external("20", "stopper", testplugin.Config{Events: "stopcontainer",
		StopUpdates: []testplugin.Update{{ContainerID: "other", CPUShares: 512}},
		SyncUpdates: []testplugin.Update{{ContainerID: "other", CPUShares: 256}}})
	e.waitPlugins("10-limiter", "20-stopper")
	e.waitLoggedLine("nrikit: updates from Synchronize refused: outside the plugin's scope", logrus.Fields{"plugin": "20-stopper"})
	mu.Lock()
	for _, u := range synced {
		if len(u) != 0 {
			t.Errorf("the runtime got updates %v from a synchronization; 20-stopper may change nothing", u)
		}
	}
	mu.Unlock()

	_, err := e.a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: testContainer("c1", pod)})
	if !errors.Is(err, adaptation.ErrOutOfScope) || !strings.Contains(err.Error(), "10-limiter") ||
		!strings.Contains(err.Error(), "resources, not in its allow list [env]") {
		t.Errorf("UpdateContainer = %v, want 10-limiter's change of resources refused", err)
	}
	stop, err := e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: testContainer("c1", pod)})
	if err != nil || len(stop.GetUpdate()) != 0 {
		t.Errorf("StopContainer = %v, %v; want no error and 20-stopper's update dropped", stop, err)
	}
	line := e.waitLoggedLine("nrikit: updates from StopContainer dropped", logrus.Fields{"plugin": "20-stopper"})
	if got := line[0].Data[logrus.ErrorKey]; got == nil || !strings.Contains(got.(error).Error(), "updates, not in its allow list []") {
		t.Errorf("the drop is logged with %v, want the reason", got)
	}
}

// TestScopeOfUnsolicitedUpdates: a plugin not allowed updates hears why
// its UpdateContainers is refused, and none reaches the runtime; one
// allowed them has them applied.
func TestScopeOfUnsolicitedUpdates(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, allowing("10-quiet", "resources"), allowing("20-balancer", "updates"))
	e.start()
	update := []*api.ContainerUpdate{{ContainerId: "c1", Linux: &api.LinuxContainerUpdate{
		Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0-1"}}}}}
	for _, tc := range []struct {
		idx, name string
		refused   bool
	}{{"10", "quiet", true}, {"20", "balancer", false}} {
		p, err := testplugin.Start(ctx, dialSocket(t, e.socket), testplugin.Config{Name: tc.name, Index: tc.idx})
		must(t, err)
		defer p.Close()
		e.waitPluginsInclude(tc.idx + "-" + tc.name)
		_, err = p.UpdateContainers(ctx, update)
		if got := err != nil; got != tc.refused ||
			tc.refused && (status.Code(err) != codes.PermissionDenied ||
				!strings.Contains(err.Error(), `updates, not in its allow list [resources] (plugin_settings."10-quiet".allow)`)) {
			t.Errorf("%s: UpdateContainers = %v, want refused %v, saying why", tc.name, err, tc.refused)
		}
	}
	e.waitLoggedLine("nrikit: unsolicited updates refused: outside the plugin's scope", logrus.Fields{"plugin": "10-quiet"})
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if len(e.store.updates) != 1 {
		t.Errorf("the runtime got %d calls of updates, want 20-balancer's only", len(e.store.updates))
	}
}

// TestScopeOfTheRuntimesOwnPlugins: a scope binds the runtime's own
// plugins too: a pre-installed and a built-in plugin allowed only env fail
// the creation they annotate, each named; an observe-only one that changes
// nothing does not.
func TestScopeOfTheRuntimesOwnPlugins(t *testing.T) {
	ctx := context.Background()
	pod := testPod("own")
	for _, tc := range []struct {
		id    string
		setup func(probe *env) *env
	}{
		{"10-pre", func(probe *env) *env {
			e := newEnvAt(t, probe, allowing("10-pre", "env"), allowing("20-watcher"))
			e.preinstall("10", "pre", annotatesAndSetsEnv)
			e.preinstall("20", "watcher", testplugin.Config{Events: "createcontainer"})
			return e
		}},
		{"15-inproc", func(probe *env) *env {
			e := newEnvAt(t, probe, allowing("inproc", "env"), allowing("20-watcher"),
				adaptation.WithBuiltinPlugins(probe.builtin("15", "inproc", annotatesAndSetsEnv)))
			e.preinstall("20", "watcher", testplugin.Config{Events: "createcontainer"})
			return e
		}},
	} {
		e := tc.setup(newEnv(t)) // the probe lends its paths and event log
		e.start()
		e.waitPlugins(tc.id, "20-watcher")
		_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("c1", pod)})
		var perr *adaptation.PluginError
		if !errors.Is(err, adaptation.ErrOutOfScope) || !errors.As(err, &perr) || perr.Plugin != tc.id || !strings.Contains(err.Error(), "annotations") {
			t.Errorf("%s: CreateContainer = %v, want its annotation refused", tc.id, err)
		}
		if got := pluginInfo(t, e.a)["20-watcher"].Allow; got == nil || len(got) != 0 {
			t.Errorf("20-watcher's allow %#v, want empty: it may change nothing", got)
		}
	}
}

// TestScopeHoldsFromRegistration: a plugin's scope holds as soon as it can
// call the runtime: unsolicited updates sent in its handshake, before it
// answered Configure, are refused as later ones are.
func TestScopeHoldsFromRegistration(t *testing.T) {
	e := newEnv(t, allowing("10-early", "resources"))
	e.start()
	p := dialRaw(t, e.socket)
	p.send(p.runtime, ttrpcMessage(1, 1, 0, call(runtimeService, "RegisterPlugin", &api.RegisterPluginRequest{PluginName: "early", PluginIdx: "10"})))
	configure := p.request("Configure") // registered: it may call the runtime
	if st := p.response(1).GetStatus(); st.GetCode() != 0 {
		t.Fatalf("RegisterPlugin: %v", st)
	}
	p.send(p.runtime, ttrpcMessage(3, 1, 0, call(runtimeService, "UpdateContainers", &api.UpdateContainersRequest{
		Update: []*api.ContainerUpdate{{ContainerId: "c1", Linux: &api.LinuxContainerUpdate{
			Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{Cpus: "0"}}}}}})))
	if st := p.response(3).GetStatus(); st.GetCode() != int32(codes.PermissionDenied) || !strings.Contains(st.GetMessage(), "updates, not in its allow list [resources]") {
		t.Errorf("UpdateContainers in the handshake: status %v, want refused for the plugin's scope", st)
	}
	p.answer(configure, &api.ConfigureResponse{})
	p.answer(p.request("Synchronize"), &api.SynchronizeResponse{})
	e.waitPlugins("10-early")
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if len(e.store.updates) != 0 {
		t.Errorf("the runtime got updates %v", e.store.updates)
	}
}

// BenchmarkCreateContainerScoped is BenchmarkCreateContainer with every
// plugin limited to what it changes (annotations and env): compare its
// allocs/op with BenchmarkCreateContainer's (the same: a scope check
// allocates nothing when the reply is within it).
func BenchmarkCreateContainerScoped(b *testing.B) {
	for _, c := range dispatchCases {
		var opts []adaptation.Option
		for i := range c.plugins {
			opts = append(opts, allowing(fmt.Sprintf("bench%d", i), "annotations", "env"))
		}
		b.Run(c.String(), func(b *testing.B) { benchCreateContainer(b, c, opts...) })
	}
}
