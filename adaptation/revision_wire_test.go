// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/mux"
)

// ttrpcPeer is a plugin made of bare parts: our mux, a ttrpc server with
// just the methods a test gives it, and a ttrpc client that can call any
// service name, to break the protocol in ways no stub would.
type ttrpcPeer struct {
	mux    *mux.Mux
	client *ttrpc.Client
}

func dialTTRPCPeer(t *testing.T, socket, pluginService string, methods map[string]ttrpc.Method) *ttrpcPeer {
	t.Helper()
	return ttrpcPeerOver(t, dialSocket(t, socket), pluginService, methods)
}

// ttrpcPeerOver is dialTTRPCPeer over a connection the test made itself.
func ttrpcPeerOver(t *testing.T, trunk net.Conn, pluginService string, methods map[string]ttrpc.Method) *ttrpcPeer {
	t.Helper()
	m := mux.New(trunk)
	l, err := m.Listen(mux.PluginServiceConn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := m.Open(mux.RuntimeServiceConn)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	srv.RegisterService(pluginService, &ttrpc.ServiceDesc{Methods: methods})
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(context.Background(), l) }()
	r := &ttrpcPeer{mux: m, client: ttrpc.NewClient(conn)}
	t.Cleanup(func() {
		_ = r.client.Close()
		_ = srv.Close()
		_ = m.Close()
		<-served
	})
	return r
}

func (r *ttrpcPeer) register(service, idx, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	return r.client.Call(ctx, service, "RegisterPlugin", &api.RegisterPluginRequest{PluginIdx: idx, PluginName: name}, &api.Empty{})
}

// waitClosed waits for the runtime to close the raw plugin's connection.
func (r *ttrpcPeer) waitClosed(t *testing.T) {
	t.Helper()
	select {
	case <-r.mux.Done():
	case <-time.After(waitLimit):
		t.Fatal("the runtime did not close the connection")
	}
}

func rawMethod[Req any, PReq interface{ *Req }](fn func(PReq) (any, error)) ttrpc.Method {
	return func(_ context.Context, unmarshal func(any) error) (any, error) {
		req := PReq(new(Req))
		if err := unmarshal(req); err != nil {
			return nil, err
		}
		return fn(req)
	}
}

// basicMethods are Configure (subscribing to events), Synchronize and Shutdown.
func basicMethods(events api.EventMask, policy *api.FailurePolicy) map[string]ttrpc.Method {
	return map[string]ttrpc.Method{
		"Configure": rawMethod(func(*api.ConfigureRequest) (any, error) {
			return &api.ConfigureResponse{Events: int32(events), FailurePolicy: policy}, nil
		}),
		"Synchronize": rawMethod(func(*api.SynchronizeRequest) (any, error) { return &api.SynchronizeResponse{}, nil }),
		"Shutdown":    rawMethod(func(*api.ShutdownRequest) (any, error) { return &api.Empty{}, nil }),
	}
}

func wantStatus(t *testing.T, err error, code codes.Code, fragments ...string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("got %v, want code %v", err, code)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not say %q", err, f)
		}
	}
}

// A plugin that calls both revisions' RegisterPlugin gets a clear error and
// is dropped; so is a registered plugin that calls the other revision's
// Runtime service later. An unknown revision's service is Unimplemented, and
// does not fix the connection's revision. A v1beta1 plugin gets the runtime's
// failure policy, and a missing event RPC is its error, not a StateChange
// fallback.
func TestRevisionProtocolErrors(t *testing.T) {
	t.Run("both RegisterPlugins", func(t *testing.T) {
		changes := newChangeLog()
		e := newEnv(t, adaptation.WithPluginChanges(changes.add))
		e.start()
		configuring, release := make(chan struct{}), make(chan struct{})
		methods := basicMethods(api.AllEvents, nil)
		methods["Configure"] = rawMethod(func(*api.ConfigureRequest) (any, error) {
			close(configuring)
			<-release
			return &api.ConfigureResponse{Events: int32(api.AllEvents)}, nil
		})
		r := dialTTRPCPeer(t, e.socket, "nri.pkg.api.v1alpha1.Plugin", methods)
		must(t, r.register("nri.pkg.api.v1alpha1.Runtime", "10", "raw"))
		<-configuring
		err := r.register("nri.pkg.api.v1beta1.Runtime", "10", "raw")
		close(release)
		wantStatus(t, err, codes.FailedPrecondition,
			"registered on revision v1alpha1 called nri.pkg.api.v1beta1.Runtime/RegisterPlugin")
		r.waitClosed(t)
		expectChanges(t, changes, "10-raw", [2]string{"failed ", "one connection speaks one revision"})
		if c := changes.all(); c[len(c)-1].Revision != adaptation.RevisionV1alpha1 {
			t.Errorf("the failed change does not name the revision: %+v", c[len(c)-1])
		}
	})

	t.Run("other revision while synchronizing", func(t *testing.T) {
		changes := newChangeLog()
		e := newEnv(t, adaptation.WithPluginChanges(changes.add))
		e.start()
		syncing, release := make(chan struct{}), make(chan struct{})
		methods := basicMethods(api.AllEvents, nil)
		methods["Synchronize"] = rawMethod(func(*api.SynchronizeRequest) (any, error) {
			close(syncing)
			<-release
			return &api.SynchronizeResponse{}, nil
		})
		r := dialTTRPCPeer(t, e.socket, "nri.pkg.api.v1beta1.Plugin", methods)
		must(t, r.register("nri.pkg.api.v1beta1.Runtime", "10", "raw"))
		<-syncing
		err := r.register("nri.pkg.api.v1alpha1.Runtime", "10", "raw")
		close(release)
		wantStatus(t, err, codes.FailedPrecondition,
			"registered on revision v1beta1 called nri.pkg.api.v1alpha1.Runtime/RegisterPlugin")
		expectChanges(t, changes, "10-raw", [2]string{"joined :", ""}, [2]string{"left :", "protocol error: "})
		e.waitPlugins()
		r.waitClosed(t)
	})

	t.Run("other revision later", func(t *testing.T) {
		changes := newChangeLog()
		e := newEnv(t, adaptation.WithPluginChanges(changes.add),
			adaptation.WithDefaultFailurePolicy(adaptation.FailurePolicy{KeepConnected: true}))
		e.start()
		run := api.MaskOf(api.Event_RUN_POD_SANDBOX)
		r := dialTTRPCPeer(t, e.socket, "nri.pkg.api.v1beta1.Plugin", basicMethods(run, &api.FailurePolicy{FailRequest: true}))

		err := r.register("nri.pkg.api.v1gamma1.Runtime", "10", "raw")
		wantStatus(t, err, codes.Unimplemented, "nri.pkg.api.v1gamma1.Runtime")
		must(t, r.register("nri.pkg.api.v1beta1.Runtime", "10", "raw"))
		e.waitPlugins("10-raw")
		info := e.a.Plugins()[0]
		if info.Revision != adaptation.RevisionV1beta1 || info.FailurePolicy != (adaptation.FailurePolicy{KeepConnected: true}) {
			t.Errorf("Plugins() = %+v, want revision v1beta1 with the runtime's failure policy", info)
		}

		err = e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("p")})
		var perr *adaptation.PluginError
		if !errors.As(err, &perr) || perr.Plugin != "10-raw" || status.Code(err) != codes.Unimplemented {
			t.Errorf("RunPodSandbox on a v1beta1 plugin without the RPC = %v, want its Unimplemented error", err)
		}
		if strings.Contains(err.Error(), "StateChange") || e.a.Plugins()[0].StateChange {
			t.Errorf("a v1beta1 plugin was sent to the StateChange fallback: %v", err)
		}
		if deps := e.a.Deprecations(); len(deps) != 0 {
			t.Errorf("a v1beta1 plugin was recorded as deprecated: %+v", deps)
		}

		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		err = r.client.Call(ctx, "nri.pkg.api.v1alpha1.Runtime", "UpdateContainers", &api.UpdateContainersRequest{}, &api.UpdateContainersResponse{})
		wantStatus(t, err, codes.FailedPrecondition,
			"registered on revision v1beta1 called nri.pkg.api.v1alpha1.Runtime/UpdateContainers")
		r.waitClosed(t)
		expectChanges(t, changes, "10-raw", [2]string{"joined :", ""}, [2]string{"left :", "protocol error: "})
		e.waitPlugins()
		if c := changes.all(); c[len(c)-1].Revision != adaptation.RevisionV1beta1 {
			t.Errorf("the left change does not name the revision: %+v", c[len(c)-1])
		}
	})
}
