// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	refapi "github.com/containerd/nri/pkg/api"
	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/nrikit/nrikit/internal/mux"
)

// The floor is a do-nothing runtime side: nrikit's mux and ttrpc, with no
// locking, bookkeeping, merge or policy. It registers each plugin as the
// protocol requires (RegisterPlugin served, then Configure and an empty
// Synchronize) and relays each event with exactly the ttrpc calls both
// adaptations make for it: the event's dedicated method to each plugin
// subscribed to it, in index order, and for CreateContainer then
// ValidateContainerAdjustment to every validator at once, with the merged
// adjustment and its owners. Its requests carry the reference's payload
// (its types, decoded from the same state). Two variants differ only in how
// requests are encoded:
//
//   - floor: reflective proto.Marshal by ttrpc, per call, as both
//     adaptations do today;
//   - floor-pre: every request encoded before the measured loop, carried
//     as the unknown fields of an empty message of the request's type, which
//     protobuf writes out verbatim. Only the validation request's merged
//     adjustment and owners, which depend on the plugins' replies, are
//     encoded during the event.

const (
	pluginService  = "nri.pkg.api.v1alpha1.Plugin"
	floorTimeout   = 2 * time.Second // the request timeout of both adaptations
	floorRegWait   = 5 * time.Second
	floorValidator = refapi.Event_VALIDATE_CONTAINER_ADJUSTMENT
)

type floorPlugin struct {
	idx, name, id string // id is idx-name
	mask          refapi.EventMask
	client        *ttrpc.Client
	server        *ttrpc.Server
	mux           *mux.Mux
}

type floorRuntime struct {
	preencoded bool
	count      func(int)
	events     []event
	ln         net.Listener
	d          *decoded[*refapi.PodSandbox, *refapi.Container]

	mu        sync.Mutex
	connected []*floorPlugin

	// set by ready
	plugins    []*floorPlugin // in index order
	validators []*floorPlugin
	instances  []*refapi.PluginInstance
	enc        map[event][][]proto.Message // pre-encoded requests by event, pod, container
	encVal     [][][]byte                  // pre-encoded pod, container and plugins of the validation request
}

func newFloor(cfg *rtConfig, preencoded bool) (runtimeUnderTest, error) {
	d := decode(cfg, func() *refapi.PodSandbox { return &refapi.PodSandbox{} }, func() *refapi.Container { return &refapi.Container{} })
	ln, err := net.Listen("unix", cfg.socket())
	if err != nil {
		return nil, err
	}
	f := &floorRuntime{preencoded: preencoded, count: cfg.hooks.count, events: cfg.events, ln: ln, d: d}
	go f.accept(cfg.log)
	return f, nil
}

func (f *floorRuntime) stateBytes() int { return 0 }

func (f *floorRuntime) accept(log *logCapture) {
	for {
		trunk, err := f.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			p, err := f.register(trunk)
			if err != nil {
				_, _ = log.Write([]byte("floor: " + err.Error()))
				_ = trunk.Close()
				return
			}
			f.mu.Lock()
			f.connected = append(f.connected, p)
			n := len(f.connected)
			f.mu.Unlock()
			f.count(n)
		}()
	}
}

// floorRuntimeService serves the plugin's calls: RegisterPlugin and
// UpdateContainers.
type floorRuntimeService struct {
	registered chan *refapi.RegisterPluginRequest
}

func (s *floorRuntimeService) RegisterPlugin(_ context.Context, req *refapi.RegisterPluginRequest) (*refapi.Empty, error) {
	select {
	case s.registered <- req:
	default:
	}
	return &refapi.Empty{}, nil
}

func (s *floorRuntimeService) UpdateContainers(context.Context, *refapi.UpdateContainersRequest) (*refapi.UpdateContainersResponse, error) {
	return &refapi.UpdateContainersResponse{}, nil
}

// register sets up both services on the trunk, waits for RegisterPlugin, and
// configures and synchronizes the plugin.
func (f *floorRuntime) register(trunk net.Conn) (*floorPlugin, error) {
	m := mux.New(trunk, mux.WithReaderBlocked())
	rc, err := m.Open(mux.RuntimeServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	pc, err := m.Open(mux.PluginServiceConn)
	if err != nil {
		m.Close()
		return nil, err
	}
	server, err := ttrpc.NewServer()
	if err != nil {
		m.Close()
		return nil, err
	}
	svc := &floorRuntimeService{registered: make(chan *refapi.RegisterPluginRequest, 1)}
	refapi.RegisterRuntimeService(server, svc)
	go func() { _ = server.Serve(context.Background(), newOneConnListener(rc)) }()
	p := &floorPlugin{client: ttrpc.NewClient(pc), server: server, mux: m}
	m.Unblock()

	t := time.NewTimer(floorRegWait)
	defer t.Stop()
	select {
	case req := <-svc.registered:
		p.idx, p.name = req.GetPluginIdx(), req.GetPluginName()
		p.id = p.idx + "-" + p.name
	case <-m.Done():
		p.close()
		return nil, errors.New("connection closed before RegisterPlugin")
	case <-t.C:
		p.close()
		return nil, errors.New("RegisterPlugin timed out")
	}
	cfg := &refapi.ConfigureResponse{}
	err = p.call(context.Background(), "Configure", &refapi.ConfigureRequest{
		RuntimeName: "bench", RuntimeVersion: "v0",
		RegistrationTimeout: floorRegWait.Milliseconds(), RequestTimeout: floorTimeout.Milliseconds(),
	}, cfg)
	if err != nil {
		p.close()
		return nil, fmt.Errorf("%s: Configure: %w", p.id, err)
	}
	p.mask = refapi.EventMask(cfg.GetEvents())
	if p.mask == 0 {
		p.mask = refapi.ValidEvents
	}
	if err := p.call(context.Background(), "Synchronize", &refapi.SynchronizeRequest{}, &refapi.SynchronizeResponse{}); err != nil {
		p.close()
		return nil, fmt.Errorf("%s: Synchronize: %w", p.id, err)
	}
	return p, nil
}

// pluginCalls counts the plugin calls of the runtime under test: the
// floor's, and those nrikit's and the reference's metrics report.
var pluginCalls atomic.Int64

func (p *floorPlugin) call(ctx context.Context, method string, req, rsp proto.Message) error {
	pluginCalls.Add(1)
	ctx, cancel := context.WithTimeout(ctx, floorTimeout)
	defer cancel()
	return p.client.Call(ctx, pluginService, method, req, rsp)
}

func (p *floorPlugin) close() {
	_ = p.client.Close()
	_ = p.server.Close()
	_ = p.mux.Close()
}

func (f *floorRuntime) stop() {
	_ = f.ln.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.connected {
		p.close()
	}
}

// ready takes the registered plugins in index order and, for floor-pre,
// encodes every request of the workload.
func (f *floorRuntime) ready() error {
	f.mu.Lock()
	f.plugins = slices.Clone(f.connected)
	f.mu.Unlock()
	slices.SortFunc(f.plugins, func(a, b *floorPlugin) int { return cmp.Compare(a.idx, b.idx) })
	for _, p := range f.plugins {
		f.instances = append(f.instances, &refapi.PluginInstance{Name: p.name, Index: p.idx})
		if p.mask.IsSet(floorValidator) {
			f.validators = append(f.validators, p)
		}
	}
	if f.preencoded {
		return f.encodeAhead()
	}
	return nil
}

func (f *floorRuntime) encodeAhead() error {
	f.enc = map[event][][]proto.Message{}
	for _, ev := range f.events {
		byPod := make([][]proto.Message, len(f.d.wlPods))
		for p := range f.d.wlPods {
			n := len(f.d.wlCtrs[p])
			if !ev.containerEvent() {
				n = 1
			}
			for c := 0; c < n; c++ {
				b, err := proto.Marshal(f.request(ev, p, c))
				if err != nil {
					return err
				}
				byPod[p] = append(byPod[p], rawMessage(ev.newRequest(), b))
			}
		}
		f.enc[ev] = byPod
		if ev == evCreate && len(f.validators) > 0 {
			f.encVal = make([][][]byte, len(f.d.wlPods))
			for p, pod := range f.d.wlPods {
				for _, ctr := range f.d.wlCtrs[p] {
					b, err := proto.Marshal(&refapi.ValidateContainerAdjustmentRequest{Pod: pod, Container: ctr, Plugins: f.instances})
					if err != nil {
						return err
					}
					f.encVal[p] = append(f.encVal[p], b)
				}
			}
		}
	}
	return nil
}

// rawMessage makes m carry b as its unknown fields: marshalling it writes b.
func rawMessage(m proto.Message, b []byte) proto.Message {
	m.ProtoReflect().SetUnknown(protoreflect.RawFields(b))
	return m
}

func (f *floorRuntime) do(ctx context.Context, ev event, p, c int) (int, error) {
	var req proto.Message
	if f.preencoded {
		if !ev.containerEvent() {
			c = 0
		}
		req = f.enc[ev][p][c]
	} else {
		req = f.request(ev, p, c)
	}
	if ev == evCreate {
		return f.create(ctx, req, p, c)
	}
	sub := ev.subscription()
	for _, pl := range f.plugins {
		if !pl.mask.IsSet(sub) {
			continue
		}
		if err := pl.call(ctx, ev.method(), req, ev.newResponse()); err != nil {
			return 0, fmt.Errorf("%s: %s: %w", pl.id, ev, err)
		}
	}
	return 0, nil
}

// create relays CreateContainer to each subscribed plugin in turn, collects
// their annotations and environment variables into one adjustment shaped
// like the reference's merged one, with its owners, and has the validators
// check it at once.
func (f *floorRuntime) create(ctx context.Context, req proto.Message, p, c int) (int, error) {
	ctr := f.d.wlCtrs[p][c]
	adjust := &refapi.ContainerAdjustment{
		Annotations: map[string]string{},
		Hooks:       &refapi.Hooks{},
		Linux:       &refapi.LinuxContainerAdjustment{Resources: &refapi.LinuxResources{Memory: &refapi.LinuxMemory{}, Cpu: &refapi.LinuxCPU{}}},
	}
	owners := refapi.NewOwningPlugins()
	for _, pl := range f.plugins {
		if !pl.mask.IsSet(refapi.Event_CREATE_CONTAINER) {
			continue
		}
		rsp := &refapi.CreateContainerResponse{}
		if err := pl.call(ctx, "CreateContainer", req, rsp); err != nil {
			return 0, fmt.Errorf("%s: CreateContainer: %w", pl.id, err)
		}
		for k, v := range rsp.GetAdjust().GetAnnotations() {
			adjust.Annotations[k] = v
			_ = owners.ClaimAnnotation(ctr.GetId(), k, pl.id)
		}
		for _, kv := range rsp.GetAdjust().GetEnv() {
			adjust.Env = append(adjust.Env, kv)
			_ = owners.ClaimEnv(ctr.GetId(), kv.GetKey(), pl.id)
		}
	}
	if len(f.validators) == 0 {
		return len(adjust.Annotations), nil
	}
	vreq, err := f.validation(p, c, adjust, owners)
	if err != nil {
		return 0, err
	}
	if len(f.validators) == 1 {
		return len(adjust.Annotations), f.validate(ctx, f.validators[0], vreq)
	}
	errs := make([]error, len(f.validators))
	var wg sync.WaitGroup
	for i, pl := range f.validators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.validate(ctx, pl, vreq)
		}()
	}
	wg.Wait()
	return len(adjust.Annotations), errors.Join(errs...)
}

func (f *floorRuntime) validation(p, c int, adjust *refapi.ContainerAdjustment, owners *refapi.OwningPlugins) (proto.Message, error) {
	if !f.preencoded {
		return &refapi.ValidateContainerAdjustmentRequest{
			Pod: f.d.wlPods[p], Container: f.d.wlCtrs[p][c], Adjust: adjust, Owners: owners, Plugins: f.instances,
		}, nil
	}
	tail := &refapi.ValidateContainerAdjustmentRequest{Adjust: adjust, Owners: owners}
	head := f.encVal[p][c]
	b := make([]byte, len(head), len(head)+proto.Size(tail))
	copy(b, head)
	b, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(b, tail)
	if err != nil {
		return nil, err
	}
	return rawMessage(&refapi.ValidateContainerAdjustmentRequest{}, b), nil
}

func (f *floorRuntime) validate(ctx context.Context, pl *floorPlugin, req proto.Message) error {
	rsp := &refapi.ValidateContainerAdjustmentResponse{}
	if err := pl.call(ctx, "ValidateContainerAdjustment", req, rsp); err != nil {
		return fmt.Errorf("%s: ValidateContainerAdjustment: %w", pl.id, err)
	}
	if rsp.GetReject() {
		return fmt.Errorf("%s rejected the adjustment: %s", pl.id, rsp.GetReason())
	}
	return nil
}

// oneConnListener hands one connection to a ttrpc server.
type oneConnListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	addr  net.Addr
}

func newOneConnListener(c net.Conn) *oneConnListener {
	l := &oneConnListener{conns: make(chan net.Conn, 1), done: make(chan struct{}), addr: c.LocalAddr()}
	l.conns <- c
	return l
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *oneConnListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return l.addr }
