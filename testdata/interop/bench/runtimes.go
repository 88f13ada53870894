// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	nri "github.com/containerd/nri/pkg/adaptation"
	refapi "github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// hooks are how a runtime reports plugin synchronization to the benchmark.
type hooks struct {
	syncStart func()          // the runtime called its SyncFn
	syncDone  func(err error) // the sync callback returned
	count     func(n int)     // the number of active plugins changed
}

// rtConfig configures a runtime under test. The sync state and the
// workload's pods and containers are in nrikit's types; each runtime decodes
// its own copy from their wire encoding (into the reference's types, or into
// nrikit's) and keeps no reference to them.
type rtConfig struct {
	dir     string        // temp dir: socket, empty plugin and config dirs
	timeout time.Duration // 0: the runtime's defaults; else the raised sync/request timeout
	pods    []*api.PodSandbox
	ctrs    []*api.Container
	wlPods  []*api.PodSandbox  // the workload's pods
	wlCtrs  [][]*api.Container // the workload's containers, by pod
	events  []event            // the events the workload makes
	hooks   hooks
	log     *logCapture
	records int // nrikit's container_records; 0: off
	// scoped is the ID of a plugin nrikit gives the scope of the pods of
	// runtime handler nvidia (plugin_settings filter), which leaves the
	// workload's runc pods out; "": none. The reference has no such setting.
	scoped string
}

func (c *rtConfig) socket() string { return filepath.Join(c.dir, "nri.sock") }

func newRuntime(impl string, cfg *rtConfig) (runtimeUnderTest, error) {
	switch impl {
	case implRef:
		return newRef(cfg)
	case implOurs:
		return newOurs(cfg)
	case implFloor:
		return newFloor(cfg, false)
	case implFloorPre:
		return newFloor(cfg, true)
	}
	return nil, fmt.Errorf("unknown implementation %q", impl)
}

// decoded is the state and workload decoded into one runtime's types.
type decoded[P, C proto.Message] struct {
	pods   []P
	ctrs   []C
	wlPods []P
	wlCtrs [][]C
}

func decode[P, C proto.Message](cfg *rtConfig, newP func() P, newC func() C) *decoded[P, C] {
	d := &decoded[P, C]{
		pods: convertAll(cfg.pods, newP), ctrs: convertAll(cfg.ctrs, newC),
		wlPods: convertAll(cfg.wlPods, newP),
	}
	for _, cs := range cfg.wlCtrs {
		d.wlCtrs = append(d.wlCtrs, convertAll(cs, newC))
	}
	return d
}

func convertAll[F, T proto.Message](from []F, newT func() T) []T {
	to := make([]T, len(from))
	for i, m := range from {
		to[i] = newT()
		convert(m, to[i])
	}
	return to
}

// ---- nrikit ----

type oursMetrics struct{ h hooks }

func (oursMetrics) PluginInvoked(string, api.Event, adaptation.Outcome, time.Duration) {
	pluginCalls.Add(1)
}
func (oursMetrics) AdjustmentsReturned(string, api.Event, int, int, int) {}
func (m oursMetrics) PluginCount(n int)                                  { m.h.count(n) }

type oursRuntime struct {
	a     *adaptation.Adaptation
	d     *decoded[*api.PodSandbox, *api.Container]
	bytes int
}

func newOurs(cfg *rtConfig) (runtimeUnderTest, error) {
	// Decode the state from its encoding, as newRef does, so that both
	// runtimes hold the same kind of heap objects (fakenode's string
	// constants would otherwise cost ours nothing).
	d := decode(cfg, func() *api.PodSandbox { return &api.PodSandbox{} }, func() *api.Container { return &api.Container{} })
	h := cfg.hooks
	syncFn := func(ctx context.Context, cb adaptation.SyncCB) error {
		h.syncStart()
		_, err := cb(ctx, d.pods, d.ctrs)
		h.syncDone(err)
		return err
	}
	update := func(context.Context, []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) { return nil, nil }
	opts := []adaptation.Option{
		adaptation.WithSocketPath(cfg.socket()),
		adaptation.WithPluginPath(""),
		adaptation.WithPluginConfigPath(""),
		adaptation.WithMetrics(oursMetrics{h}),
		adaptation.WithLogger(cfg.log.entry()),
	}
	if cfg.timeout > 0 {
		opts = append(opts, adaptation.WithRequestTimeout(cfg.timeout), adaptation.WithSyncTimeout(cfg.timeout))
	}
	if cfg.records > 0 {
		opts = append(opts, adaptation.WithContainerRecords(cfg.records))
	}
	if cfg.scoped != "" {
		opts = append(opts, adaptation.WithPluginSettings(cfg.scoped, adaptation.PluginSettings{
			Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{"nvidia"}},
		}))
	}
	a, err := adaptation.New("bench", "v0", syncFn, update, opts...)
	if err != nil {
		return nil, err
	}
	if err := a.Start(context.Background()); err != nil {
		return nil, err
	}
	return &oursRuntime{a: a, d: d, bytes: encodedSize(d.pods, d.ctrs)}, nil
}

func (r *oursRuntime) ready() error    { return nil }
func (r *oursRuntime) stateBytes() int { return r.bytes }

func (r *oursRuntime) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.a.Stop(ctx)
}

func (r *oursRuntime) do(ctx context.Context, ev event, p, c int) (int, error) {
	pod := r.d.wlPods[p]
	var ctr *api.Container
	if cs := r.d.wlCtrs[p]; c < len(cs) {
		ctr = cs[c]
	}
	a := r.a
	switch ev {
	case evRunPod:
		return 0, a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	case evCreate:
		rsp, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
		return len(rsp.GetAdjust().GetAnnotations()), err
	case evPostCreate:
		return 0, a.PostCreateContainer(ctx, &api.PostCreateContainerRequest{Pod: pod, Container: ctr})
	case evStart:
		return 0, a.StartContainer(ctx, &api.StartContainerRequest{Pod: pod, Container: ctr})
	case evPostStart:
		return 0, a.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: pod, Container: ctr})
	case evUpdate:
		_, err := a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: ctr, LinuxResources: ctr.GetLinux().GetResources()})
		return 0, err
	case evPostUpdate:
		return 0, a.PostUpdateContainer(ctx, &api.PostUpdateContainerRequest{Pod: pod, Container: ctr})
	case evStopContainer:
		_, err := a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: ctr})
		return 0, err
	case evRemoveContainer:
		return 0, a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr})
	case evStopPod:
		return 0, a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod})
	case evRemovePod:
		return 0, a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod})
	}
	return 0, fmt.Errorf("unknown event %d", int(ev))
}

// ---- reference (github.com/containerd/nri/pkg/adaptation) ----

type refMetrics struct{ h hooks }

func (refMetrics) RecordPluginInvocation(string, string, error)                               { pluginCalls.Add(1) }
func (refMetrics) RecordPluginLatency(string, string, time.Duration)                          {}
func (refMetrics) RecordPluginAdjustments(string, string, *nri.ContainerAdjustment, int, int) {}
func (m refMetrics) UpdatePluginCount(n int)                                                  { m.h.count(n) }

type refRuntime struct {
	a     *nri.Adaptation
	d     *decoded[*refapi.PodSandbox, *refapi.Container]
	bytes int
}

func newRef(cfg *rtConfig) (runtimeUnderTest, error) {
	d := decode(cfg, func() *refapi.PodSandbox { return &refapi.PodSandbox{} }, func() *refapi.Container { return &refapi.Container{} })

	// The reference's timeouts are package-wide settings.
	if cfg.timeout > 0 {
		nri.SetPluginRequestTimeout(cfg.timeout)
	}
	cfg.log.useForStandardLogger()

	h := cfg.hooks
	syncFn := func(ctx context.Context, cb nri.SyncCB) error {
		h.syncStart()
		_, err := cb(ctx, d.pods, d.ctrs)
		h.syncDone(err)
		return err
	}
	update := func(context.Context, []*nri.ContainerUpdate) ([]*nri.ContainerUpdate, error) { return nil, nil }
	empty := filepath.Join(cfg.dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		return nil, err
	}
	a, err := nri.New("bench", "v0", syncFn, update,
		nri.WithSocketPath(cfg.socket()),
		nri.WithPluginPath(empty),
		nri.WithPluginConfigPath(empty),
		nri.WithMetrics(refMetrics{h}),
	)
	if err != nil {
		return nil, err
	}
	if err := a.Start(); err != nil {
		return nil, err
	}
	return &refRuntime{a: a, d: d, bytes: encodedSize(d.pods, d.ctrs)}, nil
}

func (r *refRuntime) ready() error    { return nil }
func (r *refRuntime) stateBytes() int { return r.bytes }
func (r *refRuntime) stop()           { r.a.Stop() }

func (r *refRuntime) do(ctx context.Context, ev event, p, c int) (int, error) {
	pod := r.d.wlPods[p]
	var ctr *refapi.Container
	if cs := r.d.wlCtrs[p]; c < len(cs) {
		ctr = cs[c]
	}
	a := r.a
	switch ev {
	case evRunPod:
		return 0, a.RunPodSandbox(ctx, &nri.RunPodSandboxRequest{Pod: pod})
	case evCreate:
		rsp, err := a.CreateContainer(ctx, &nri.CreateContainerRequest{Pod: pod, Container: ctr})
		return len(rsp.GetAdjust().GetAnnotations()), err
	case evPostCreate:
		return 0, a.PostCreateContainer(ctx, &nri.PostCreateContainerRequest{Pod: pod, Container: ctr})
	case evStart:
		return 0, a.StartContainer(ctx, &nri.StartContainerRequest{Pod: pod, Container: ctr})
	case evPostStart:
		return 0, a.PostStartContainer(ctx, &nri.PostStartContainerRequest{Pod: pod, Container: ctr})
	case evUpdate:
		_, err := a.UpdateContainer(ctx, &nri.UpdateContainerRequest{Pod: pod, Container: ctr, LinuxResources: ctr.GetLinux().GetResources()})
		return 0, err
	case evPostUpdate:
		return 0, a.PostUpdateContainer(ctx, &nri.PostUpdateContainerRequest{Pod: pod, Container: ctr})
	case evStopContainer:
		_, err := a.StopContainer(ctx, &nri.StopContainerRequest{Pod: pod, Container: ctr})
		return 0, err
	case evRemoveContainer:
		return 0, a.RemoveContainer(ctx, &nri.RemoveContainerRequest{Pod: pod, Container: ctr})
	case evStopPod:
		return 0, a.StopPodSandbox(ctx, &nri.StopPodSandboxRequest{Pod: pod})
	case evRemovePod:
		return 0, a.RemovePodSandbox(ctx, &nri.RemovePodSandboxRequest{Pod: pod})
	}
	return 0, fmt.Errorf("unknown event %d", int(ev))
}

// convert copies an nrikit message into a wire-compatible message (the
// reference's, or a fresh nrikit one) by encoding and decoding it. Fields the
// reference does not know (nrikit's additions) are dropped, as a reference
// runtime would not have them.
func convert(from, to proto.Message) {
	b, err := proto.Marshal(from)
	if err != nil {
		panic(err)
	}
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, to); err != nil {
		panic(err)
	}
}

func encodedSize[P, C proto.Message](pods []P, ctrs []C) int {
	n := 0
	for _, p := range pods {
		n += proto.Size(p)
	}
	for _, c := range ctrs {
		n += proto.Size(c)
	}
	return n
}
