// SPDX-License-Identifier: Apache-2.0

package interoptest_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// TestModernPluginLargeRequests sends a reference-stub plugin five
// CreateContainer requests of about 1.5 MB (a container with 15,000
// environment variables) and checks that it answers every one and stays
// connected.
//
// The reference mux queues at most 256 unread frames per logical connection
// and fails the whole trunk on the 257th. Its trunk reader only lets the
// ttrpc consumer catch up when the socket runs dry, so a request cut into
// hundreds of 4096-byte frames kills the plugin whenever it arrives faster
// than the plugin reads. The test makes that certain: the plugin runs on one
// CPU (GOMAXPROCS=1, so its reader and its consumer take turns), and our end
// of the trunk (burstTrunk, with a socket send buffer large enough for the
// request) puts each whole request into the socket in one write, as if the
// plugin had not been scheduled while it was sent. Framed as the reference
// writer frames it, a first frame of 4096 bytes and then the rest in one
// frame, a request is two frames however it arrives.
func TestModernPluginLargeRequests(t *testing.T) {
	const requests = 5
	var trunk *burstTrunk
	p := startPeerWith(t, peerOptions{
		env: []string{"GOMAXPROCS=1"},
		trunk: func(c net.Conn) net.Conn {
			if uc, ok := c.(*net.UnixConn); ok {
				// Capped by net.core.wmem_max; below about 2 MB a request
				// no longer lands in the socket at once and the old framing
				// only fails sometimes. The test passes either way.
				if err := uc.SetWriteBuffer(4 << 20); err != nil {
					t.Logf("SetWriteBuffer: %v", err)
				}
			}
			trunk = &burstTrunk{Conn: c}
			return trunk
		},
	}, "-events", "createcontainer")
	checkRegistration(t, p)
	checkConfigure(t, p, api.MaskOf(api.Event_CREATE_CONTAINER))
	if _, err := p.plugin.Synchronize(p.ctx(), &api.SynchronizeRequest{}); err != nil {
		t.Fatalf("Synchronize: %v\n%s", err, p.output)
	}

	pod := &api.PodSandbox{Id: "big-pod", Name: "big", Uid: "uid-big", Namespace: "default"}
	env := make([]string, 15000)
	for i := range env {
		env[i] = fmt.Sprintf("BIG_%05d=%s", i, strings.Repeat("x", 90))
	}
	for i := range requests {
		ctr := &api.Container{Id: fmt.Sprintf("big-%d", i), PodSandboxId: pod.GetId(), Name: fmt.Sprintf("ctr-%d", i),
			State: api.ContainerState_CONTAINER_CREATED, Args: []string{"/bin/app"}, Env: env}
		req := &api.CreateContainerRequest{Pod: pod, Container: ctr}
		if i == 0 {
			t.Logf("each request is %d bytes", proto.Size(req))
		}
		trunk.hold(proto.Size(req))
		resp, err := p.plugin.CreateContainer(p.ctx(), req)
		if err != nil {
			t.Fatalf("CreateContainer %d of %d: %v\n%s", i+1, requests, err, p.output)
		}
		if got := resp.GetAdjust().GetAnnotations()["interop.nrikit.io/interop"]; got != stubVersion {
			t.Fatalf("CreateContainer %d of %d: annotation %q, want %q", i+1, requests, got, stubVersion)
		}
	}
	n := 0
	for _, r := range p.events() {
		if r.Event == "CreateContainer" {
			n++
		}
	}
	if n != requests {
		t.Errorf("the plugin logged %d CreateContainer events, want %d", n, requests)
	}
	p.close(true)
}

// burstTrunk is our end of the trunk. Once hold(n) arms it, it keeps what
// the mux writes until at least n bytes have come and then writes them all
// to the socket in one write.
type burstTrunk struct {
	net.Conn

	mu   sync.Mutex
	want int // bytes to collect before writing; 0 passes writes through
	held []byte
}

func (b *burstTrunk) hold(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.want = n
}

func (b *burstTrunk) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.want == 0 {
		return b.Conn.Write(p)
	}
	b.held = append(b.held, p...)
	if len(b.held) < b.want {
		return len(p), nil
	}
	held := b.held
	b.held, b.want = nil, 0
	if _, err := b.Conn.Write(held); err != nil {
		return 0, err
	}
	return len(p), nil
}
