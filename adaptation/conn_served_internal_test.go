// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"context"
	"net"
	"reflect"
	"testing"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nrikit/nrikit/api"
)

type emptyRuntime struct{}

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
	for _, r := range revisions {
		for i := range iface.NumMethod() {
			if name := iface.Method(i).Name; !servesRuntime(r.runtimeService, name) {
				t.Errorf("%s.%s is not listed as served", r.runtimeService, name)
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
	for _, r := range revisions {
		r.register(server, emptyRuntime{})
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
	for _, r := range revisions {
		for method := range runtimeCalls {
			err := client.Call(context.Background(), r.runtimeService, method, &api.Empty{}, &api.Empty{})
			if status.Code(err) == codes.Unimplemented {
				t.Errorf("%s.%s is listed as served but is not registered: %v", r.runtimeService, method, err)
			}
		}
	}
	client.Close()
	server.Close()
	<-done
}
