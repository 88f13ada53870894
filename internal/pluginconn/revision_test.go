// SPDX-License-Identifier: Apache-2.0

package pluginconn

import (
	"context"
	"net"
	"reflect"
	"testing"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
)

// emptyRuntime serves the runtime's calls, answering each with nothing.
type emptyRuntime struct{}

// registerEmpty serves emptyRuntime as every revision's Runtime service.
func registerEmpty(server *ttrpc.Server) {
	for _, r := range Revisions {
		r.Register(server, emptyRuntime{})
	}
}

// dialForTest is Dial of trunk serving emptyRuntime.
func dialForTest(t testing.TB, trunk net.Conn, log *logrus.Entry, name string) *Conn {
	t.Helper()
	c, err := Dial(trunk, Config{Register: registerEmpty, Log: log, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (emptyRuntime) RegisterPlugin(context.Context, *api.RegisterPluginRequest) (*api.Empty, error) {
	return &api.Empty{}, nil
}

func (emptyRuntime) UpdateContainers(context.Context, *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	return &api.UpdateContainersResponse{}, nil
}

// TestServedMethodsAreRegistered: the guard's list of served calls is what
// each revision registers, no more and no less.
func TestServedMethodsAreRegistered(t *testing.T) {
	iface := reflect.TypeFor[api.RuntimeService]()
	if len(runtimeCalls) != iface.NumMethod() {
		t.Errorf("runtimeCalls lists %d calls, api.RuntimeService has %d", len(runtimeCalls), iface.NumMethod())
	}
	for _, r := range Revisions {
		for i := range iface.NumMethod() {
			if name := iface.Method(i).Name; !servesRuntime(r.RuntimeService, name) {
				t.Errorf("%s.%s is not listed as served", r.RuntimeService, name)
			}
		}
	}
	if servesRuntime("nri.pkg.api.v1gamma1.Runtime", "RegisterPlugin") {
		t.Error("a revision nrikit does not serve is listed as served")
	}

	server, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Revisions {
		r.Register(server, emptyRuntime{})
	}
	l, err := net.Listen("unix", t.TempDir()+"/s")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = server.Serve(context.Background(), l) }()
	conn, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	client := ttrpc.NewClient(conn)
	for _, r := range Revisions {
		for method := range runtimeCalls {
			err := client.Call(context.Background(), r.RuntimeService, method, &api.Empty{}, &api.Empty{})
			if status.Code(err) == codes.Unimplemented {
				t.Errorf("%s.%s is listed as served but is not registered: %v", r.RuntimeService, method, err)
			}
		}
	}
	client.Close()
	server.Close()
	<-done
}
