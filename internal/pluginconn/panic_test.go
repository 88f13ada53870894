// SPDX-License-Identifier: Apache-2.0

package pluginconn

import (
	"context"
	"testing"

	"github.com/containerd/ttrpc"
)

// A panic in the runtime's own UpdateFn is the runtime's bug: the recovery
// around the plugin's call raises it again rather than carry on with the
// runtime's lock in an unknown state.
func TestRuntimePanicIsRaisedAgain(t *testing.T) {
	c := &Conn{}
	defer func() {
		if v := recover(); v != "runtime bug" {
			t.Errorf("recovered %v, want the runtime's own panic", v)
		}
	}()
	_, _ = c.recoverServed(context.Background(), nil, &ttrpc.UnaryServerInfo{FullMethod: "/Runtime/UpdateContainers"},
		func(context.Context, func(any) error) (any, error) {
			ByRuntime(func() { panic("runtime bug") })
			return nil, nil
		})
	t.Error("the runtime's panic was swallowed")
}
