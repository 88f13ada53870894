// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
)

// ViaStateChange is Record.Via for an event taken through StateChange.
const ViaStateChange = "StateChange"

// ErrClosed is returned by calls that were hanging or waiting when their
// Handler was closed.
var ErrClosed = errors.New("nrikit: testplugin: handler closed")

// Handler is the plugin logic, independent of any transport: a runtime can
// call it in-process through api.PluginService, and Run serves it over a
// trunk. It is safe for concurrent calls.
type Handler struct {
	cfg        Config
	mask       api.EventMask
	delay      time.Duration
	behaviours map[string]behaviour
	log        *eventLog
	pid        int
	dice       *dice
	known      *containerSet // containers heard created and not removed

	// Chunks of a split Synchronize collected so far.
	syncMu     sync.Mutex
	syncPods   []*api.PodSandbox
	syncCtrs   []*api.Container
	syncChunks int

	shutdownOnce sync.Once
	shutdown     chan struct{}
	syncedOnce   sync.Once
	synced       chan struct{} // closed once the first synchronization is done
	closeOnce    sync.Once
	closed       chan struct{}
}

type behaviour struct {
	Behaviour
	delay time.Duration
}

var _ api.PluginService = (*Handler)(nil)

// NewHandler validates cfg and opens its event log. Close releases the log
// and ends calls that are hanging.
func NewHandler(cfg Config) (*Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	mask, _ := cfg.Mask()
	delay, _ := parseDelay("delay", cfg.Delay)
	bs := make(map[string]behaviour, len(cfg.Behaviours))
	for key, b := range cfg.Behaviours {
		d, _ := parseDelay(key, b.Delay)
		bs[key] = behaviour{Behaviour: b, delay: d}
	}
	l, err := openLog(cfg.LogPath)
	if err != nil {
		return nil, err
	}
	return &Handler{
		cfg:        cfg,
		mask:       mask,
		delay:      delay,
		behaviours: bs,
		log:        l,
		pid:        os.Getpid(),
		dice:       newDice(cfg.Chaos),
		known:      newContainerSet(),
		shutdown:   make(chan struct{}),
		synced:     make(chan struct{}),
		closed:     make(chan struct{}),
	}, nil
}

// Config returns the configuration the handler runs with.
func (h *Handler) Config() Config { return h.cfg }

// ShutdownRequested is closed once the runtime has called Shutdown.
func (h *Handler) ShutdownRequested() <-chan struct{} { return h.shutdown }

// Close ends hanging and delayed calls with ErrClosed and closes the event
// log. It is idempotent.
func (h *Handler) Close() error {
	var err error
	h.closeOnce.Do(func() {
		close(h.closed)
		err = h.log.close()
	})
	return err
}

// serve is the common path of every call: log it, then apply its behaviour.
// The record is on disk before the caller can see the reply, whatever the
// behaviour does next.
func (h *Handler) serve(ctx context.Context, key string, rec Record, delay time.Duration) error {
	b, ok := h.behaviours[key]
	if ok && b.Delay != "" {
		delay = b.delay
	}
	b = h.dice.roll(key, b)
	rec.Plugin, rec.Index, rec.PID, rec.Error = h.cfg.Name, h.cfg.Index, h.pid, b.Fail
	if err := h.log.write(rec); err != nil {
		return fmt.Errorf("nrikit: testplugin: log %s: %w", rec.Event, err)
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-h.closed:
			return ErrClosed
		}
	}
	if b.Exit != 0 {
		os.Exit(b.Exit)
	}
	if b.Panic != "" {
		fmt.Fprintf(os.Stdout, "%s-%s: about to panic in %s\n", h.cfg.Index, h.cfg.Name, key)
		fmt.Fprintf(os.Stderr, "%s-%s: giving up in %s\n", h.cfg.Index, h.cfg.Name, key)
		panic(b.Panic)
	}
	if b.Hang {
		// A nil Done channel (no deadline, no cancel) blocks forever, as a
		// stuck plugin would; Close still ends it so tests do not leak.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.closed:
			return ErrClosed
		}
	}
	if b.Fail != "" {
		return errors.New(b.Fail)
	}
	return nil
}

// event handles one lifecycle event, whichever RPC carried it.
func (h *Handler) event(ctx context.Context, e api.Event, via string, pod *api.PodSandbox, ctr *api.Container) error {
	rec := Record{Event: e.Name(), Via: via, Pod: pod.GetId(), Container: ctr.GetId()}
	switch e {
	case api.Event_RUN_POD_SANDBOX:
		rec.PodState = pod.GetState().String()
	case api.Event_CREATE_CONTAINER:
		h.known.add(ctr.GetId())
		if h.cfg.LogAnnotations {
			rec.Annotations = ctr.GetAnnotations()
		}
	case api.Event_REMOVE_CONTAINER:
		h.known.remove(ctr.GetId())
	}
	return h.serve(ctx, e.Name(), rec, h.delay)
}

// newerEvent handles one of the nine events that a legacy plugin does not
// have a dedicated RPC for: in-process it answers what the ttrpc server of
// such a plugin answers.
func (h *Handler) newerEvent(ctx context.Context, e api.Event, pod *api.PodSandbox, ctr *api.Container) error {
	if h.cfg.Legacy {
		return unimplemented(e.Name())
	}
	return h.event(ctx, e, "", pod, ctr)
}

// unimplemented is the error a Go ttrpc server returns for a method it does
// not have, the runtime's cue for the StateChange fallback.
func unimplemented(method string) error {
	return status.Errorf(codes.Unimplemented, "method %v", method)
}

// Configure answers with the configured subscription and failure policy.
func (h *Handler) Configure(ctx context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	if err := h.serve(ctx, KeyConfigure, Record{Event: KeyConfigure, Config: req.GetConfig()}, 0); err != nil {
		return nil, err
	}
	resp := &api.ConfigureResponse{Events: int32(h.mask)}
	if fp := h.cfg.FailurePolicy; fp != nil {
		resp.FailurePolicy = &api.FailurePolicy{FailRequest: fp.FailRequest, KeepConnected: fp.KeepConnected}
	}
	return resp, nil
}

// Synchronize collects split messages (more=true gets the required echo and
// no updates) and logs the whole snapshot once, on the final message, which
// carries the configured SyncUpdates.
func (h *Handler) Synchronize(ctx context.Context, req *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	h.syncMu.Lock()
	h.syncPods = append(h.syncPods, req.GetPods()...)
	h.syncCtrs = append(h.syncCtrs, req.GetContainers()...)
	h.syncChunks++
	if req.GetMore() {
		h.syncMu.Unlock()
		return &api.SynchronizeResponse{More: true}, nil
	}
	pods, ctrs, chunks := h.syncPods, h.syncCtrs, h.syncChunks
	h.syncPods, h.syncCtrs, h.syncChunks = nil, nil, 0
	h.syncMu.Unlock()

	rec := Record{Event: KeySynchronize, Chunks: chunks}
	for _, p := range pods {
		rec.Pods = append(rec.Pods, p.GetId())
		if rec.PodStates == nil {
			rec.PodStates = make(map[string]string, len(pods))
		}
		rec.PodStates[p.GetId()] = p.GetState().String()
	}
	for _, c := range ctrs {
		rec.Containers = append(rec.Containers, c.GetId())
		h.known.add(c.GetId())
	}
	if err := h.serve(ctx, KeySynchronize, rec, 0); err != nil {
		return nil, err
	}
	h.syncedOnce.Do(func() { close(h.synced) })
	return &api.SynchronizeResponse{Update: h.invalidUpdates(InvalidSyncUpdate, containerUpdates(h.cfg.SyncUpdates))}, nil
}

// Shutdown logs the reason and tells whoever runs the plugin to stop once the
// reply is out.
func (h *Handler) Shutdown(ctx context.Context, req *api.ShutdownRequest) (*api.Empty, error) {
	err := h.serve(ctx, KeyShutdown, Record{Event: KeyShutdown, Reason: req.GetReason()}, 0)
	h.shutdownOnce.Do(func() { close(h.shutdown) })
	if err != nil {
		return nil, err
	}
	return &api.Empty{}, nil
}

// CreateContainer returns the configured annotations and environment.
func (h *Handler) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if err := h.event(ctx, api.Event_CREATE_CONTAINER, "", req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	updates := h.invalidUpdates(InvalidUpdate, othersUpdates(h.cfg.CreateUpdates, req.GetContainer().GetId()))
	if len(h.cfg.Annotations) == 0 && len(h.cfg.Env) == 0 && h.cfg.MemoryLimit == 0 && !h.invalidAs(InvalidAnnotationKey) {
		return &api.CreateContainerResponse{Update: updates}, nil
	}
	adjust := &api.ContainerAdjustment{}
	if len(h.cfg.Annotations) > 0 {
		adjust.Annotations = maps.Clone(h.cfg.Annotations)
	}
	if h.invalidAs(InvalidAnnotationKey) {
		adjust.Annotations = map[string]string{InvalidString: "set"}
	}
	// Sorted, so the adjustment is the same on every call.
	for _, k := range slices.Sorted(maps.Keys(h.cfg.Env)) {
		adjust.Env = append(adjust.Env, &api.KeyValue{Key: k, Value: h.cfg.Env[k]})
	}
	if h.cfg.MemoryLimit != 0 {
		adjust.SetLinuxMemoryLimit(h.cfg.MemoryLimit)
	}
	return &api.CreateContainerResponse{Adjust: adjust, Update: updates}, nil
}

func (h *Handler) UpdatePodSandbox(ctx context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	if err := h.event(ctx, api.Event_UPDATE_POD_SANDBOX, "", req.GetPod(), nil); err != nil {
		return nil, err
	}
	return &api.UpdatePodSandboxResponse{}, nil
}

func (h *Handler) UpdateContainer(ctx context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	if err := h.event(ctx, api.Event_UPDATE_CONTAINER, "", req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	if h.invalidAs(InvalidEviction) {
		return &api.UpdateContainerResponse{Evict: []*api.ContainerEviction{
			{ContainerId: req.GetContainer().GetId(), Reason: InvalidString},
		}}, nil
	}
	if h.cfg.UpdateMemoryLimit != 0 {
		u := &api.ContainerUpdate{ContainerId: req.GetContainer().GetId()}
		u.SetLinuxMemoryLimit(h.cfg.UpdateMemoryLimit)
		return &api.UpdateContainerResponse{Update: []*api.ContainerUpdate{u}}, nil
	}
	return &api.UpdateContainerResponse{}, nil
}

func (h *Handler) StopContainer(ctx context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	if err := h.event(ctx, api.Event_STOP_CONTAINER, "", req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	return &api.StopContainerResponse{Update: containerUpdates(h.cfg.StopUpdates)}, nil
}

// ValidateContainerAdjustment accepts every adjustment; use Behaviour.Fail
// to reject.
func (h *Handler) ValidateContainerAdjustment(ctx context.Context, req *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	if err := h.event(ctx, api.Event_VALIDATE_CONTAINER_ADJUSTMENT, "", req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	if h.invalidAs(InvalidRejection) {
		return &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: InvalidString}, nil
	}
	if h.cfg.Reject != "" {
		return &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: h.cfg.Reject}, nil
	}
	return &api.ValidateContainerAdjustmentResponse{}, nil
}

// StateChange takes any subscribable event, as the v0.11.0 runtime (and the
// fallback of newer ones) sends it; other values are acknowledged and
// ignored, like the reference stub does.
func (h *Handler) StateChange(ctx context.Context, req *api.StateChangeEvent) (*api.Empty, error) {
	if h.cfg.NoStateChange {
		return nil, unimplemented("StateChange")
	}
	if e := req.GetEvent(); e.Subscribable() {
		if err := h.event(ctx, e, ViaStateChange, req.GetPod(), req.GetContainer()); err != nil {
			return nil, err
		}
	}
	return &api.Empty{}, nil
}

// The nine events that v0.12.0 gave dedicated RPCs.

func (h *Handler) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	if err := h.newerEvent(ctx, api.Event_RUN_POD_SANDBOX, req.GetPod(), nil); err != nil {
		return nil, err
	}
	return &api.RunPodSandboxResponse{}, nil
}

func (h *Handler) PostUpdatePodSandbox(ctx context.Context, req *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	if err := h.newerEvent(ctx, api.Event_POST_UPDATE_POD_SANDBOX, req.GetPod(), nil); err != nil {
		return nil, err
	}
	return &api.PostUpdatePodSandboxResponse{}, nil
}

func (h *Handler) StopPodSandbox(ctx context.Context, req *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	if err := h.newerEvent(ctx, api.Event_STOP_POD_SANDBOX, req.GetPod(), nil); err != nil {
		return nil, err
	}
	return &api.StopPodSandboxResponse{}, nil
}

func (h *Handler) RemovePodSandbox(ctx context.Context, req *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	if err := h.newerEvent(ctx, api.Event_REMOVE_POD_SANDBOX, req.GetPod(), nil); err != nil {
		return nil, err
	}
	return &api.RemovePodSandboxResponse{}, nil
}

func (h *Handler) PostCreateContainer(ctx context.Context, req *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	if err := h.newerEvent(ctx, api.Event_POST_CREATE_CONTAINER, req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	return &api.PostCreateContainerResponse{}, nil
}

func (h *Handler) StartContainer(ctx context.Context, req *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	if err := h.newerEvent(ctx, api.Event_START_CONTAINER, req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	return &api.StartContainerResponse{}, nil
}

func (h *Handler) PostStartContainer(ctx context.Context, req *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	if err := h.newerEvent(ctx, api.Event_POST_START_CONTAINER, req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	return &api.PostStartContainerResponse{}, nil
}

func (h *Handler) PostUpdateContainer(ctx context.Context, req *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	if err := h.newerEvent(ctx, api.Event_POST_UPDATE_CONTAINER, req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	return &api.PostUpdateContainerResponse{}, nil
}

func (h *Handler) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	if err := h.newerEvent(ctx, api.Event_REMOVE_CONTAINER, req.GetPod(), req.GetContainer()); err != nil {
		return nil, err
	}
	return &api.RemoveContainerResponse{}, nil
}
