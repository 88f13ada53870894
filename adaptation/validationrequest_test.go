// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// accepter is an in-process validator that accepts every adjustment.
type accepter struct{ api.PluginService }

func (accepter) Configure(context.Context, *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return &api.ConfigureResponse{Events: int32(api.MaskOf(api.Event_VALIDATE_CONTAINER_ADJUSTMENT))}, nil
}

func (accepter) Synchronize(context.Context, *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{}, nil
}

func (accepter) ValidateContainerAdjustment(context.Context, *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return &api.ValidateContainerAdjustmentResponse{}, nil
}

// wireCalls keeps the requests that plugins got, as the observer reports
// them: decoded from what went on the wire.
type wireCalls struct {
	mu    sync.Mutex
	calls []adaptation.PluginCall
}

func (w *wireCalls) observe(c adaptation.PluginCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c.Request = proto.Clone(c.Request)
	w.calls = append(w.calls, c)
}

func (w *wireCalls) requests(plugin, method string) []proto.Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	var reqs []proto.Message
	for _, c := range w.calls {
		if c.Plugin == plugin && c.Method == method {
			reqs = append(reqs, c.Request)
		}
	}
	return reqs
}

// TestValidatorsGetThePristineContainer checks what a validator plugin
// process receives after two plugins adjusted a container: the pod and the
// container as the runtime gave them, the merged adjustment, its owners and
// the plugins consulted. nrikit builds that request in two ways: from the
// encoding made for the first plugin when every validator takes it encoded,
// from a copy of the container otherwise (an in-process validator, the
// default validator). Both must put the same request on the wire.
func TestValidatorsGetThePristineContainer(t *testing.T) {
	// Plugins that take no CreateContainer count as consulted.
	processes := []string{"10-first", "20-second", "90-check"}
	setups := []struct {
		name    string
		opts    []adaptation.Option
		plugins []string
	}{
		{"only plugin processes validate", nil, processes},
		{"an in-process validator too", []adaptation.Option{adaptation.WithBuiltinPlugins(
			adaptation.BuiltinPlugin{Index: "95", Name: "accept", Handler: accepter{}})}, append(processes, "95-accept")},
		{"the default validator too", []adaptation.Option{adaptation.WithDefaultValidator(
			&validator.DefaultValidatorConfig{Enable: true})}, processes},
	}
	var first *api.ValidateContainerAdjustmentRequest
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			got := validationRequestAfterTwoAdjustments(t, s.plugins, s.opts...)
			got.Plugins = nil // compared above
			if first == nil {
				first = got
			} else if !proto.Equal(got, first) {
				t.Errorf("validation request\n%v\ndiffers from the one with only plugin processes validating\n%v", got, first)
			}
		})
	}
}

func validationRequestAfterTwoAdjustments(t *testing.T, plugins []string, opts ...adaptation.Option) *api.ValidateContainerAdjustmentRequest {
	t.Helper()
	var wire wireCalls
	e := newEnv(t, append(opts, adaptation.WithPluginCallObserver(wire.observe))...)
	e.preinstall("10", "first", testplugin.Config{Events: "createcontainer", Annotations: map[string]string{"a": "1"}})
	e.preinstall("20", "second", testplugin.Config{Events: "createcontainer", Annotations: map[string]string{"b": "2"}, Env: map[string]string{"B": "2"}})
	e.preinstall("90", "check", testplugin.Config{Events: "validatecontaineradjustment"})
	e.start()
	e.waitPluginsInclude("10-first", "20-second", "90-check")

	pod := testPod("pv")
	ctr := testContainer("c", pod)
	ctr.Annotations = map[string]string{"given": "by the runtime"}
	pristinePod, pristineCtr := proto.Clone(pod), proto.Clone(ctr).(*api.Container)
	// The empty sections the reference adds to the container it relays.
	pristineCtr.Hooks = &api.Hooks{}
	pristineCtr.Linux = &api.LinuxContainer{Resources: &api.LinuxResources{Memory: &api.LinuxMemory{}, Cpu: &api.LinuxCPU{}}}
	rsp, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: ctr})
	if err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}

	creates := wire.requests("10-first", "CreateContainer")
	if len(creates) != 1 || !proto.Equal(creates[0].(*api.CreateContainerRequest).GetContainer(), pristineCtr) {
		t.Errorf("the first plugin got %v, want the container as given", creates)
	}
	creates = wire.requests("20-second", "CreateContainer")
	if len(creates) != 1 || creates[0].(*api.CreateContainerRequest).GetContainer().GetAnnotations()["a"] != "1" {
		t.Errorf("the second plugin got %v, want the first plugin's annotation in it", creates)
	}

	validations := wire.requests("90-check", "ValidateContainerAdjustment")
	if len(validations) != 1 {
		t.Fatalf("the validator got %d requests, want 1", len(validations))
	}
	got := validations[0].(*api.ValidateContainerAdjustmentRequest)
	if !proto.Equal(got.GetPod(), pristinePod) || !proto.Equal(got.GetContainer(), pristineCtr) {
		t.Errorf("the validator got pod %v and container %v, want them as the runtime gave them", got.GetPod(), got.GetContainer())
	}
	if !proto.Equal(got.GetAdjust(), rsp.GetAdjust()) {
		t.Errorf("the validator got adjustment %v, want the merged one %v", got.GetAdjust(), rsp.GetAdjust())
	}
	owners := got.GetOwners().GetOwners()["c"].GetCompound()[int32(api.Field_Annotations)].GetOwners()
	if owners["a"] != "10-first" || owners["b"] != "20-second" {
		t.Errorf("annotation owners %v, want a by 10-first and b by 20-second", owners)
	}
	var consulted []string
	for _, p := range got.GetPlugins() {
		consulted = append(consulted, p.GetIndex()+"-"+p.GetName())
	}
	if !equal(consulted, plugins) {
		t.Errorf("plugins consulted %v, want %v", consulted, plugins)
	}
	return got
}
