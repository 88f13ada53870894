// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
	"github.com/containerd/ttrpc"
)

// events are the subscribable events by their log names, in api.Event order.
var events = []struct {
	name  string
	event api.Event
}{
	{"RunPodSandbox", api.Event_RUN_POD_SANDBOX},
	{"StopPodSandbox", api.Event_STOP_POD_SANDBOX},
	{"RemovePodSandbox", api.Event_REMOVE_POD_SANDBOX},
	{"CreateContainer", api.Event_CREATE_CONTAINER},
	{"PostCreateContainer", api.Event_POST_CREATE_CONTAINER},
	{"StartContainer", api.Event_START_CONTAINER},
	{"PostStartContainer", api.Event_POST_START_CONTAINER},
	{"UpdateContainer", api.Event_UPDATE_CONTAINER},
	{"PostUpdateContainer", api.Event_POST_UPDATE_CONTAINER},
	{"StopContainer", api.Event_STOP_CONTAINER},
	{"RemoveContainer", api.Event_REMOVE_CONTAINER},
	{"UpdatePodSandbox", api.Event_UPDATE_POD_SANDBOX},
	{"PostUpdatePodSandbox", api.Event_POST_UPDATE_POD_SANDBOX},
	{"ValidateContainerAdjustment", api.Event_VALIDATE_CONTAINER_ADJUSTMENT},
}

// requests are the handlers that are not subscribable events.
var requests = []string{"Configure", "Synchronize", "Shutdown"}

// eventSet holds log event names.
type eventSet map[string]bool

// delays maps a handler's event name to how long it waits first.
type delays map[string]time.Duration

// parseDelays reads "E1:D1,E2:D2": event names as parseEvents takes them,
// each with a Go duration.
func parseDelays(list string) (delays, error) {
	out := delays{}
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, ":")
		if !ok {
			return nil, fmt.Errorf("%q is not EVENT:DURATION", item)
		}
		set, err := parseEvents(name, false)
		if err != nil {
			return nil, err
		}
		d, err := time.ParseDuration(strings.TrimSpace(value))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q: bad duration %q", name, value)
		}
		for event := range set {
			out[event] = d
		}
	}
	return out, nil
}

// parseEvents parses a comma list of event names, matched case-insensitively.
// Only subscribable events are accepted if subscribable is set.
func parseEvents(list string, subscribable bool) (eventSet, error) {
	set := eventSet{}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		canonical := ""
		for _, known := range eventNameList() {
			if strings.EqualFold(name, known) {
				canonical = known
			}
		}
		if canonical == "" {
			return nil, fmt.Errorf("unknown event %q", name)
		}
		if _, ok := eventByName(canonical); subscribable && !ok {
			return nil, fmt.Errorf("%s is not a subscribable event", canonical)
		}
		set[canonical] = true
	}
	if subscribable && len(set) == 0 {
		return nil, fmt.Errorf("no events")
	}
	return set, nil
}

func eventByName(name string) (api.Event, bool) {
	for _, e := range events {
		if e.name == name {
			return e.event, true
		}
	}
	return 0, false
}

func eventNameList() []string {
	var names []string
	for _, e := range events {
		names = append(names, e.name)
	}
	return append(names, requests...)
}

// mask returns the subscription mask for the set, all events if nil.
func (s eventSet) mask() api.EventMask {
	var m api.EventMask
	for _, e := range events {
		if s == nil || s[e.name] {
			m.Set(e.event)
		}
	}
	return m
}

// Every handler interface of the stub, checked at compile time: the stub
// silently ignores a method whose signature does not match.
var _ interface {
	stub.ConfigureInterface
	stub.SynchronizeInterface
	stub.ShutdownInterface
	stub.RunPodInterface
	stub.UpdatePodInterface
	stub.StopPodInterface
	stub.RemovePodInterface
	stub.PostUpdatePodInterface
	stub.CreateContainerInterface
	stub.StartContainerInterface
	stub.UpdateContainerInterface
	stub.StopContainerInterface
	stub.RemoveContainerInterface
	stub.PostCreateContainerInterface
	stub.PostStartContainerInterface
	stub.PostUpdateContainerInterface
	stub.ValidateContainerAdjustmentInterface
} = (*plugin)(nil)

// plugin implements every handler interface of the stub.
type plugin struct {
	rec    recorder
	policy *api.FailurePolicy // given to the stub, filled in by Configure

	mu   sync.Mutex
	cfg  *settings // in use: base, then base plus the Configure config text
	base *settings // from flags and environment
	name string    // idx-name as registered
}

func newPlugin(base *settings) *plugin {
	return &plugin{base: base, cfg: base, policy: &api.FailurePolicy{}}
}

func (p *plugin) setIdentity(name string) { p.name = name }

func (p *plugin) settings() *settings {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cfg
}

type rpcKey struct{}

// intercept runs around every request the stub serves. It tells the handlers
// which RPC carried the event (a dedicated one or StateChange), and drops the
// failure policy from the ConfigureResponse when none is configured, so that
// the wire then looks like a plugin that does not use WithFailurePolicy.
func (p *plugin) intercept(ctx context.Context, unmarshal ttrpc.Unmarshaler, info *ttrpc.UnaryServerInfo, method ttrpc.Method) (interface{}, error) {
	resp, err := method(context.WithValue(ctx, rpcKey{}, path.Base(info.FullMethod)), unmarshal)
	if r, ok := resp.(*api.ConfigureResponse); ok && p.settings().FailurePolicy == nil {
		r.FailurePolicy = nil
	}
	return resp, err
}

// newRecord starts the log record of an event.
func (p *plugin) newRecord(ctx context.Context, event string, pod *api.PodSandbox, ctr *api.Container) *record {
	rpc, _ := ctx.Value(rpcKey{}).(string)
	return &record{
		Plugin:        p.name,
		Event:         event,
		RPC:           rpc,
		Pod:           pod.GetId(),
		PodName:       pod.GetName(),
		Container:     ctr.GetId(),
		ContainerName: ctr.GetName(),
		Stub:          stubVersion,
	}
}

// handle logs the record, then waits, exits, hangs or fails as configured.
func (p *plugin) handle(ctx context.Context, cfg *settings, r *record) error {
	switch {
	case cfg.Exit[r.Event]:
		r.Action = "exit"
	case cfg.Hang[r.Event]:
		r.Action = "hang"
	case cfg.Fail[r.Event]:
		r.Action = "fail"
	}
	p.rec.write(r)
	if d := cfg.Delay[r.Event]; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	switch r.Action {
	case "exit":
		os.Exit(3)
	case "hang":
		<-ctx.Done()
		return ctx.Err()
	case "fail":
		return fmt.Errorf("plugin %s: %s failed as configured", p.name, r.Event)
	}
	return nil
}

// event logs and handles an event without a reply.
func (p *plugin) event(ctx context.Context, event string, pod *api.PodSandbox, ctr *api.Container) error {
	return p.handle(ctx, p.settings(), p.newRecord(ctx, event, pod, ctr))
}

// Configure applies the config text on top of the flag and environment
// settings and subscribes to the configured events.
func (p *plugin) Configure(ctx context.Context, config, runtime, version string) (api.EventMask, error) {
	cfg := *p.base
	err := cfg.parseConfig(config)
	if err == nil {
		err = p.rec.open(cfg.Log)
	}
	if err != nil {
		// Keep the flag and environment settings, but log the failure to
		// the config's log file if it got that far.
		_ = p.rec.open(cfg.Log)
		cfg = *p.base
	}
	mask := cfg.Events.mask()
	if cfg.FailurePolicy != nil {
		*p.policy = api.FailurePolicy{
			FailRequest:   cfg.FailurePolicy.FailRequest,
			KeepConnected: cfg.FailurePolicy.KeepConnected,
		}
	}
	p.mu.Lock()
	p.cfg = &cfg
	p.mu.Unlock()

	r := p.newRecord(ctx, "Configure", nil, nil)
	r.Config = &config
	r.Runtime = runtime + "/" + version
	r.Mask = int32(mask)
	r.Pid = os.Getpid()
	if cfg.FailurePolicy != nil {
		r.FailurePolicy = formatFailurePolicy(cfg.FailurePolicy)
	}
	if err != nil {
		r.Error = err.Error()
		p.rec.write(r)
		return 0, err
	}
	if err := p.handle(ctx, &cfg, r); err != nil {
		return 0, err
	}
	return mask, nil
}

func (p *plugin) Synchronize(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	r := p.newRecord(ctx, "Synchronize", nil, nil)
	nPods, nCtrs := len(pods), len(ctrs)
	r.Pods, r.Containers = &nPods, &nCtrs
	r.PodIDs, r.ContainerIDs = []string{}, []string{}
	for _, pod := range pods {
		r.PodIDs = append(r.PodIDs, pod.GetId())
	}
	for _, ctr := range ctrs {
		r.ContainerIDs = append(r.ContainerIDs, ctr.GetId())
	}
	return nil, p.handle(ctx, p.settings(), r)
}

func (p *plugin) Shutdown(ctx context.Context) {
	_ = p.event(ctx, "Shutdown", nil, nil)
}

func (p *plugin) RunPodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	return p.event(ctx, "RunPodSandbox", pod, nil)
}

func (p *plugin) UpdatePodSandbox(ctx context.Context, pod *api.PodSandbox, _, res *api.LinuxResources) error {
	r := p.newRecord(ctx, "UpdatePodSandbox", pod, nil)
	r.CPUShares = cpuShares(res)
	return p.handle(ctx, p.settings(), r)
}

func (p *plugin) PostUpdatePodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	return p.event(ctx, "PostUpdatePodSandbox", pod, nil)
}

func (p *plugin) StopPodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	return p.event(ctx, "StopPodSandbox", pod, nil)
}

func (p *plugin) RemovePodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	return p.event(ctx, "RemovePodSandbox", pod, nil)
}

// CreateContainer adds the configured annotation and env var.
func (p *plugin) CreateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	cfg := p.settings()
	if err := p.handle(ctx, cfg, p.newRecord(ctx, "CreateContainer", pod, ctr)); err != nil {
		return nil, nil, err
	}
	_, base, _ := strings.Cut(p.name, "-")
	annotation, env := cfg.Annotation, cfg.Env
	if annotation == nil {
		annotation = &keyValue{"interop.nrikit.io/" + base, stubVersion}
	}
	if env == nil {
		env = &keyValue{"NRIKIT_INTEROP_" + envName(base), "1"}
	}
	adjust := &api.ContainerAdjustment{}
	if annotation.Key != "" {
		adjust.AddAnnotation(annotation.Key, annotation.Value)
	}
	if env.Key != "" {
		adjust.AddEnv(env.Key, env.Value)
	}
	restrictedAdjustments(cfg, adjust)
	return adjust, nil, nil
}

// restrictedAdjustments makes the adjustments that a runtime's policy may
// forbid, as configured.
func restrictedAdjustments(cfg *settings, adjust *api.ContainerAdjustment) {
	if cfg.Hook != "" {
		adjust.AddHooks(&api.Hooks{CreateRuntime: []*api.Hook{{Path: cfg.Hook}}})
	}
	if cfg.Seccomp != "" {
		adjust.SetLinuxSeccompPolicy(&api.LinuxSeccomp{DefaultAction: cfg.Seccomp})
	}
	if ns := cfg.Namespace; ns != nil && ns.Key != "" {
		adjust.AddOrReplaceNamespace(&api.LinuxNamespace{Type: ns.Key, Path: ns.Value})
	}
	if s := cfg.Sysctl; s != nil && s.Key != "" {
		adjust.SetLinuxSysctl(s.Key, s.Value)
	}
}

func (p *plugin) PostCreateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.event(ctx, "PostCreateContainer", pod, ctr)
}

func (p *plugin) StartContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.event(ctx, "StartContainer", pod, ctr)
}

func (p *plugin) PostStartContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.event(ctx, "PostStartContainer", pod, ctr)
}

func (p *plugin) UpdateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container, res *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	r := p.newRecord(ctx, "UpdateContainer", pod, ctr)
	r.CPUShares = cpuShares(res)
	return nil, p.handle(ctx, p.settings(), r)
}

func (p *plugin) PostUpdateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.event(ctx, "PostUpdateContainer", pod, ctr)
}

func (p *plugin) StopContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) ([]*api.ContainerUpdate, error) {
	return nil, p.event(ctx, "StopContainer", pod, ctr)
}

func (p *plugin) RemoveContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.event(ctx, "RemoveContainer", pod, ctr)
}

// ValidateContainerAdjustment accepts the adjustment unless told to fail; the
// stub turns an error into a rejection with the error text as the reason.
func (p *plugin) ValidateContainerAdjustment(ctx context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	return p.event(ctx, "ValidateContainerAdjustment", req.GetPod(), req.GetContainer())
}

func cpuShares(res *api.LinuxResources) *uint64 {
	if shares := res.GetCpu().GetShares(); shares != nil {
		v := shares.GetValue()
		return &v
	}
	return nil
}

// envName turns a plugin name into an environment variable name part.
func envName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}
