// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"context"
	"fmt"

	wapi "github.com/tetratelabs/wazero/api"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// maxLogRequest caps one encoded log request; a longer one is dropped
// unread, so a guest cannot make the host copy its whole memory.
const maxLogRequest = 64 << 10

// instantiateHost provides the module "env" the guest imports: log(ptr, size).
func (g *Guest) instantiateHost(ctx context.Context) error {
	_, err := g.runtime.NewHostModuleBuilder("env").
		NewFunctionBuilder().
		WithGoModuleFunction(wapi.GoModuleFunc(g.hostLog), []wapi.ValueType{i32, i32}, []wapi.ValueType{i64}).
		WithParameterNames("offset", "size").
		Export("log").
		Instantiate(ctx)
	return err
}

// hostLog logs the guest's LogRequest and answers an empty reply: an encoded
// Empty has no bytes, so the answer is (0, 0) and needs no guest memory.
func (g *Guest) hostLog(_ context.Context, m wapi.Module, stack []uint64) {
	ptr, size := uint32(stack[0]), uint32(stack[1])
	stack[0] = 0
	if g.cfg.Log == nil {
		return
	}
	if size > maxLogRequest {
		g.cfg.Log(LevelWarn, fmt.Sprintf("nrikit: a log request of %d bytes, over the limit of %d, was dropped", size, maxLogRequest))
		return
	}
	mem := memoryOf(m)
	if mem == nil { // refused at load; a host function is no place to trust that
		g.cfg.Log(LevelWarn, "nrikit: a log request from a plugin without linear memory was dropped")
		return
	}
	buf, ok := mem.Read(ptr, size)
	if !ok {
		g.cfg.Log(LevelWarn, fmt.Sprintf("nrikit: a log request at offset %d, %d bytes, lies outside the plugin's memory", ptr, size))
		return
	}
	var req api.LogRequest
	if err := proto.Unmarshal(buf, &req); err != nil {
		g.cfg.Log(LevelWarn, fmt.Sprintf("nrikit: undecodable log request: %v", err))
		return
	}
	g.cfg.Log(Level(req.GetLevel()), req.GetMsg())
}
