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
// RegisterRuntimeService serves, no more and no less.
func TestServedMethodsAreRegistered(t *testing.T) {
	iface := reflect.TypeFor[api.RuntimeService]()
	listed := 0
	for _, methods := range runtimeMethods {
		listed += len(methods)
	}
	if listed != iface.NumMethod() {
		t.Errorf("runtimeMethods lists %d calls, api.RuntimeService has %d", listed, iface.NumMethod())
	}
	for i := range iface.NumMethod() {
		if name := iface.Method(i).Name; !servesRuntime("nri.pkg.api.v1alpha1.Runtime", name) {
			t.Errorf("%s is not listed as served", name)
		}
	}

	server, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	api.RegisterRuntimeService(server, emptyRuntime{})
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
	for service, methods := range runtimeMethods {
		for method := range methods {
			err := client.Call(context.Background(), service, method, &api.Empty{}, &api.Empty{})
			if status.Code(err) == codes.Unimplemented {
				t.Errorf("%s.%s is listed as served but is not registered: %v", service, method, err)
			}
		}
	}
	client.Close()
	server.Close()
	<-done
}
