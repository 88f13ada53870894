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

// runtimeUnderTest is one adaptation, reference or ours, behind the few
// calls the benchmarks make.
type runtimeUnderTest struct {
	stop func()
	// runPod relays RunPodSandbox for the fan-out pod.
	runPod func(ctx context.Context) error
	// create relays CreateContainer for fan-out container i and returns the
	// number of annotations in the merged adjustment.
	create func(ctx context.Context, i int) (int, error)
	// stateBytes is the encoded size of the sync state as this runtime holds it.
	stateBytes int
}

// hooks are how a runtime reports plugin synchronization to the benchmark.
type hooks struct {
	syncStart func()          // the runtime called its SyncFn
	syncDone  func(err error) // the sync callback returned
	count     func(n int)     // the number of active plugins changed
}

// rtConfig configures a runtime under test. The state and fan-out objects
// are in nrikit's types; each runtime decodes its own copy from their wire
// encoding (into the reference's types, or into nrikit's) and keeps no
// reference to them.
type rtConfig struct {
	dir     string        // temp dir: socket, empty plugin and config dirs
	timeout time.Duration // 0: the runtime's defaults; else the raised sync/request timeout
	pods    []*api.PodSandbox
	ctrs    []*api.Container
	fanPod  *api.PodSandbox
	fanCtrs []*api.Container
	hooks   hooks
	log     *logCapture
}

func (c *rtConfig) socket() string { return filepath.Join(c.dir, "nri.sock") }

func newRuntime(impl string, cfg *rtConfig) (*runtimeUnderTest, error) {
	switch impl {
	case implRef:
		return newRef(cfg)
	case implOurs:
		return newOurs(cfg)
	}
	return nil, fmt.Errorf("unknown implementation %q", impl)
}

// ---- nrikit ----

type oursMetrics struct{ h hooks }

func (oursMetrics) PluginInvoked(string, api.Event, adaptation.Outcome, time.Duration) {}
func (oursMetrics) AdjustmentsReturned(string, api.Event, int, int, int)               {}
func (m oursMetrics) PluginCount(n int)                                                { m.h.count(n) }

func newOurs(cfg *rtConfig) (*runtimeUnderTest, error) {
	// Decode the state from its encoding, as newRef does, so that both
	// runtimes hold the same kind of heap objects (fakenode's string
	// constants would otherwise cost ours nothing).
	pods := make([]*api.PodSandbox, len(cfg.pods))
	for i, p := range cfg.pods {
		pods[i] = &api.PodSandbox{}
		convert(p, pods[i])
	}
	ctrs := make([]*api.Container, len(cfg.ctrs))
	for i, c := range cfg.ctrs {
		ctrs[i] = &api.Container{}
		convert(c, ctrs[i])
	}
	var pod *api.PodSandbox
	if cfg.fanPod != nil {
		pod = &api.PodSandbox{}
		convert(cfg.fanPod, pod)
	}
	fan := make([]*api.Container, len(cfg.fanCtrs))
	for i, c := range cfg.fanCtrs {
		fan[i] = &api.Container{}
		convert(c, fan[i])
	}
	h := cfg.hooks
	syncFn := func(ctx context.Context, cb adaptation.SyncCB) error {
		h.syncStart()
		_, err := cb(ctx, pods, ctrs)
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
	a, err := adaptation.New("bench", "v0", syncFn, update, opts...)
	if err != nil {
		return nil, err
	}
	if err := a.Start(context.Background()); err != nil {
		return nil, err
	}
	r := &runtimeUnderTest{stateBytes: encodedSize(pods, ctrs)}
	r.stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
	}
	r.runPod = func(ctx context.Context) error {
		return a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	}
	r.create = func(ctx context.Context, i int) (int, error) {
		rsp, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: fan[i]})
		return len(rsp.GetAdjust().GetAnnotations()), err
	}
	return r, nil
}

// ---- reference (github.com/containerd/nri/pkg/adaptation) ----

type refMetrics struct{ h hooks }

func (refMetrics) RecordPluginInvocation(string, string, error)                               {}
func (refMetrics) RecordPluginLatency(string, string, time.Duration)                          {}
func (refMetrics) RecordPluginAdjustments(string, string, *nri.ContainerAdjustment, int, int) {}
func (m refMetrics) UpdatePluginCount(n int)                                                  { m.h.count(n) }

func newRef(cfg *rtConfig) (*runtimeUnderTest, error) {
	pods := make([]*refapi.PodSandbox, len(cfg.pods))
	for i, p := range cfg.pods {
		pods[i] = &refapi.PodSandbox{}
		convert(p, pods[i])
	}
	ctrs := make([]*refapi.Container, len(cfg.ctrs))
	for i, c := range cfg.ctrs {
		ctrs[i] = &refapi.Container{}
		convert(c, ctrs[i])
	}
	var pod *refapi.PodSandbox
	if cfg.fanPod != nil {
		pod = &refapi.PodSandbox{}
		convert(cfg.fanPod, pod)
	}
	fan := make([]*refapi.Container, len(cfg.fanCtrs))
	for i, c := range cfg.fanCtrs {
		fan[i] = &refapi.Container{}
		convert(c, fan[i])
	}

	// The reference's timeouts are package-wide settings.
	if cfg.timeout > 0 {
		nri.SetPluginRequestTimeout(cfg.timeout)
	}
	cfg.log.useForStandardLogger()

	h := cfg.hooks
	syncFn := func(ctx context.Context, cb nri.SyncCB) error {
		h.syncStart()
		_, err := cb(ctx, pods, ctrs)
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
	r := &runtimeUnderTest{stateBytes: encodedSize(pods, ctrs)}
	r.stop = a.Stop
	r.runPod = func(ctx context.Context) error {
		return a.RunPodSandbox(ctx, &nri.RunPodSandboxRequest{Pod: pod})
	}
	r.create = func(ctx context.Context, i int) (int, error) {
		rsp, err := a.CreateContainer(ctx, &nri.CreateContainerRequest{Pod: pod, Container: fan[i]})
		return len(rsp.GetAdjust().GetAnnotations()), err
	}
	return r, nil
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
