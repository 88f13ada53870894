// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/mux"
	"github.com/nrikit/nrikit/internal/sockpair"
)

// waitTimeout bounds every wait in these tests; nothing should take long.
const waitTimeout = 10 * time.Second

// fakeRuntime is the minimal runtime side of one trunk: the Runtime service
// on connection 2 and a Plugin client on connection 1, set up in the order a
// runtime must use (reader blocked until the server runs).
type fakeRuntime struct {
	mux       *mux.Mux
	srv       *ttrpc.Server
	client    *ttrpc.Client
	plugin    api.PluginService
	serveDone chan struct{}

	// onRegister, if set, runs inside RegisterPlugin before it replies; an
	// error is the reply.
	onRegister func(ctx context.Context, req *api.RegisterPluginRequest) error
	registered chan *api.RegisterPluginRequest
	updates    chan *api.UpdateContainersRequest
}

func newFakeRuntime(t *testing.T, trunk net.Conn, onRegister func(context.Context, *api.RegisterPluginRequest) error) *fakeRuntime {
	t.Helper()
	m := mux.New(trunk, mux.WithReaderBlocked())
	l, err := m.Listen(mux.RuntimeServiceConn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := m.Open(mux.PluginServiceConn)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	client := ttrpc.NewClient(conn)
	rt := &fakeRuntime{
		mux:        m,
		srv:        srv,
		client:     client,
		plugin:     api.NewPluginClient(client),
		serveDone:  make(chan struct{}),
		onRegister: onRegister,
		registered: make(chan *api.RegisterPluginRequest, 1),
		updates:    make(chan *api.UpdateContainersRequest, 1),
	}
	api.RegisterRuntimeService(srv, rt)
	go func() {
		defer close(rt.serveDone)
		srv.Serve(context.Background(), l)
	}()
	m.Unblock()
	t.Cleanup(rt.close)
	return rt
}

func (rt *fakeRuntime) RegisterPlugin(ctx context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	if rt.onRegister != nil {
		if err := rt.onRegister(ctx, req); err != nil {
			return nil, err
		}
	}
	rt.registered <- req
	return &api.Empty{}, nil
}

func (rt *fakeRuntime) UpdateContainers(ctx context.Context, req *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	rt.updates <- req
	// Report the first update as failed, so the reply path is checked too.
	return &api.UpdateContainersResponse{Failed: req.GetUpdate()[:1]}, nil
}

func (rt *fakeRuntime) close() {
	rt.srv.Close()
	rt.client.Close()
	rt.mux.Close()
	<-rt.serveDone
}

// waitRegistered returns the RegisterPlugin request, or fails the test.
func (rt *fakeRuntime) waitRegistered(t *testing.T) *api.RegisterPluginRequest {
	t.Helper()
	select {
	case req := <-rt.registered:
		return req
	case <-time.After(waitTimeout):
		t.Fatal("no RegisterPlugin")
		return nil
	}
}

// connPair returns both ends of a socketpair as net.Conns.
func connPair(t *testing.T) (runtimeEnd, pluginEnd net.Conn) {
	t.Helper()
	return sockpair.Conns(t)
}

// waitErr waits for a result from ch, or fails the test.
func waitErr(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(waitTimeout):
		t.Fatalf("%s did not end", what)
		return nil
	}
}
