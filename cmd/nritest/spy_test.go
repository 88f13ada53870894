// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/mux"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// spy is an external plugin in the test process: a test plugin that also
// keeps the CreateContainer requests it gets, can run a hook inside
// PostStartContainer, and can send unsolicited updates.
type spy struct {
	*testplugin.Handler
	runtime api.RuntimeService
	// onPostStart runs inside the PostStartContainer call, before it
	// returns; set before the plugin registers.
	onPostStart func(ctx context.Context, s *spy, req *api.PostStartContainerRequest)

	mu      sync.Mutex
	created []*api.CreateContainerRequest
}

// connectSpy connects a spy to the runtime's socket and registers it. The
// test's cleanup disconnects it.
func connectSpy(t *testing.T, sock string, cfg testplugin.Config, onPostStart func(context.Context, *spy, *api.PostStartContainerRequest)) *spy {
	t.Helper()
	h, err := testplugin.NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	m := mux.New(conn)
	t.Cleanup(func() { m.Close() })
	l, err := m.Listen(mux.PluginServiceConn)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := m.Open(mux.RuntimeServiceConn)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	s := &spy{Handler: h, onPostStart: onPostStart}
	api.RegisterPluginService(srv, s)
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(context.Background(), l)
	}()
	client := ttrpc.NewClient(rc)
	s.runtime = api.NewRuntimeClient(client)
	t.Cleanup(func() {
		srv.Close()
		client.Close()
		m.Close()
		<-served
	})

	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	if _, err := s.runtime.RegisterPlugin(ctx, &api.RegisterPluginRequest{PluginName: cfg.Name, PluginIdx: cfg.Index}); err != nil {
		t.Fatalf("registering the spy: %v", err)
	}
	return s
}

func (s *spy) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	s.mu.Lock()
	s.created = append(s.created, proto.Clone(req).(*api.CreateContainerRequest))
	s.mu.Unlock()
	return s.Handler.CreateContainer(ctx, req)
}

func (s *spy) PostStartContainer(ctx context.Context, req *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	if s.onPostStart != nil {
		s.onPostStart(ctx, s, req)
	}
	return s.Handler.PostStartContainer(ctx, req)
}

// creates returns the CreateContainer requests received so far.
func (s *spy) creates() []*api.CreateContainerRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*api.CreateContainerRequest(nil), s.created...)
}

// update sends an unsolicited update and returns the IDs of those that
// failed.
func (s *spy) update(ctx context.Context, updates ...*api.ContainerUpdate) ([]string, error) {
	rsp, err := s.runtime.UpdateContainers(ctx, &api.UpdateContainersRequest{Update: updates})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, u := range rsp.GetFailed() {
		ids = append(ids, u.GetContainerId())
	}
	return ids, nil
}

// resourceUpdate is an update of the container id.
func resourceUpdate(id string, res *api.LinuxResources) *api.ContainerUpdate {
	return &api.ContainerUpdate{ContainerId: id, Linux: &api.LinuxContainerUpdate{Resources: res}}
}
