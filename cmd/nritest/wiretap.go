// SPDX-License-Identifier: Apache-2.0

package main

import (
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// Via is the RPC that delivered an event to a plugin.
type Via string

const (
	ViaDedicated   Via = "dedicated"
	ViaStateChange Via = "StateChange"
)

// wireCall is one call nrikit made to a plugin, as the conformance run saw
// it on the wire (adaptation.WithPluginCallObserver).
type wireCall struct {
	step   int    // the script step under way; -1 before the script
	method string // the Plugin service method
	event  api.Event
	via    Via
	podID  string
	ctrID  string
	// unimplemented: a dedicated call answered Unimplemented (a plugin that
	// predates it; StateChange follows).
	unimplemented bool
	err           error
	// Synchronize: what the message listed; Configure: the subscription.
	pods, ctrs []string
	events     api.EventMask
}

// instance is one connection of a plugin: a new one begins with each
// Configure (at start, after a restart or a reconnection).
type instance struct {
	calls []wireCall
}

// wiretap collects the calls to each plugin, by plugin and instance.
type wiretap struct {
	mu      sync.Mutex
	step    int
	plugins map[string][]*instance
	order   []string // plugin ids in order of first call
}

func newWiretap() *wiretap {
	return &wiretap{step: -1, plugins: map[string][]*instance{}}
}

// setStep marks the script step under way.
func (w *wiretap) setStep(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.step = i
}

// observe is the adaptation's call observer.
func (w *wiretap) observe(c adaptation.PluginCall) {
	wc := decodeCall(c)
	w.mu.Lock()
	defer w.mu.Unlock()
	wc.step = w.step
	insts := w.plugins[c.Plugin]
	if insts == nil {
		w.order = append(w.order, c.Plugin)
	}
	if c.Method == "Configure" || len(insts) == 0 {
		insts = append(insts, &instance{})
		w.plugins[c.Plugin] = insts
	}
	last := insts[len(insts)-1]
	last.calls = append(last.calls, wc)
}

// instances returns a copy of the instances of plugin id.
func (w *wiretap) instances(id string) []*instance {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*instance, len(w.plugins[id]))
	for i, in := range w.plugins[id] {
		out[i] = &instance{calls: append([]wireCall(nil), in.calls...)}
	}
	return out
}

type podRequest interface{ GetPod() *api.PodSandbox }
type containerRequest interface{ GetContainer() *api.Container }

// decodeCall reads what a call was about.
func decodeCall(c adaptation.PluginCall) wireCall {
	wc := wireCall{method: c.Method, via: ViaDedicated, err: c.Err}
	wc.unimplemented = c.Err != nil && isUnimplemented(c.Err)
	switch r := c.Request.(type) {
	case *api.StateChangeEvent:
		wc.event, wc.via = r.GetEvent(), ViaStateChange
		wc.podID, wc.ctrID = r.GetPod().GetId(), r.GetContainer().GetId()
		return wc
	case *api.SynchronizeRequest:
		for _, p := range r.GetPods() {
			wc.pods = append(wc.pods, p.GetId())
		}
		for _, ctr := range r.GetContainers() {
			wc.ctrs = append(wc.ctrs, ctr.GetId())
		}
		return wc
	case *api.ConfigureRequest:
		if rsp, ok := c.Response.(*api.ConfigureResponse); ok {
			wc.events, _ = api.EventMask(rsp.GetEvents()).Effective()
		}
		return wc
	}
	if ev, err := api.ParseEvent(c.Method); err == nil {
		wc.event = ev
	}
	if r, ok := c.Request.(podRequest); ok {
		wc.podID = r.GetPod().GetId()
	}
	if r, ok := c.Request.(containerRequest); ok {
		wc.ctrID = r.GetContainer().GetId()
		if wc.podID == "" {
			wc.podID = r.GetContainer().GetPodSandboxId()
		}
	}
	return wc
}

// isUnimplemented tells a gRPC/ttrpc Unimplemented status (code 12): the
// plugin lacks the method.
func isUnimplemented(err error) bool { return status.Code(err) == codes.Unimplemented }
