// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// TestInteropLargeRequest: a reference-stub plugin, v0.12.5 or v0.11.0,
// takes five CreateContainer requests of about 1.5 MB (a container with
// 15,000 environment variables) and answers each one, staying connected.
//
// The reference mux fails its whole trunk once more than 256 frames of one
// connection wait unread, and its trunk reader lets the ttrpc consumer catch
// up only when the socket runs dry. nrikit used to cut every message into
// 4096-byte frames, about 375 for one of these requests, and lost the
// plugin whenever a request came in faster than the plugin read it. Now it
// sends a message as the reference runtime does, the first 4096 bytes and
// then the rest in one frame. The test makes the fast arrival certain: the
// plugin runs on one CPU (GOMAXPROCS=1, so its reader and consumer take
// turns), and it reaches the runtime through burstRelay, which puts each
// whole request into the plugin's socket in one write, as if the plugin had
// not been scheduled while it was sent.
func TestInteropLargeRequest(t *testing.T) {
	for _, stub := range []struct{ module, version string }{{"modern", "v0.12.5"}, {"legacy", "v0.11.0"}} {
		t.Run(stub.module, func(t *testing.T) { largeRequests(t, stub.module, stub.version) })
	}
}

func largeRequests(t *testing.T, module, version string) {
	const requests = 5
	e := newEnv(t)
	e.start()
	relay := startBurstRelay(t, filepath.Join(e.dir, "relay.sock"), e.socket)
	// The later -socket flag wins over the runtime's socket.
	e.refExternalEnv([]string{"GOMAXPROCS=1"}, module, "10", "big",
		"socket="+relay.path, "events=RunPodSandbox,CreateContainer")
	e.waitPlugins("10-big")

	ctx := context.Background()
	pod := testPod("big")
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	env := make([]string, 15000)
	envBytes := 0
	for i := range env {
		env[i] = fmt.Sprintf("BIG_%05d=%s", i, strings.Repeat("x", 90))
		envBytes += len(env[i])
	}
	for i := range requests {
		ctr := testContainer(fmt.Sprintf("big-c%d", i), pod)
		ctr.Env = env
		req := &api.CreateContainerRequest{Pod: pod, Container: ctr}
		if i == 0 {
			t.Logf("each request is about %d bytes", proto.Size(req))
		}
		relay.hold(envBytes) // less than nrikit's request to the plugin
		rsp, err := e.a.CreateContainer(ctx, req)
		if err != nil {
			t.Fatalf("CreateContainer %d of %d: %v", i+1, requests, err)
		}
		if got := rsp.GetAdjust().GetAnnotations()["interop.nrikit.io/big"]; got != version {
			e.dumpLog()
			t.Fatalf("CreateContainer %d of %d: the plugin's annotation is missing (%q); active plugins %v",
				i+1, requests, got, pluginIDs(e.a))
		}
	}
	if got := pluginIDs(e.a); !slices.Equal(got, []string{"10-big"}) {
		t.Fatalf("active plugins after %d large requests: %v", requests, got)
	}
	n := 0
	for _, r := range e.refRecords("10-big") {
		if r.Event == "CreateContainer" {
			n++
		}
	}
	if n != requests {
		t.Errorf("the plugin logged %d CreateContainer events, want %d", n, requests)
	}
}

// burstRelay passes one plugin connection through to the runtime's socket.
// Once hold(n) arms it, it keeps what the runtime sends until at least n
// bytes have come and then writes them to the plugin in one write, on a
// socket whose send buffer (up to net.core.wmem_max) holds them all.
type burstRelay struct {
	path string // where the plugin connects

	mu   sync.Mutex
	want int // bytes to collect before writing; 0 passes data through
	held []byte
}

// startBurstRelay listens at path and relays the first connection to the
// runtime socket at target. Cleanup waits for the relay to end, which it
// does when either side closes.
func startBurstRelay(t *testing.T, path, target string) *burstRelay {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	r := &burstRelay{path: path}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		down, err := l.Accept()
		l.Close()
		if err != nil {
			return // the test ended before the plugin connected
		}
		up, err := net.Dial("unix", target)
		if err != nil {
			t.Errorf("relay: %v", err)
			down.Close()
			return
		}
		if err := down.(*net.UnixConn).SetWriteBuffer(4 << 20); err != nil {
			t.Logf("relay: SetWriteBuffer: %v", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = io.Copy(up, down) // the plugin's side
			up.Close()
			down.Close()
		}()
		r.toPlugin(up, down)
		up.Close()
		down.Close()
	}()
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	return r
}

func (r *burstRelay) hold(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.want = n
}

// toPlugin copies what the runtime sends to the plugin until either side
// ends.
func (r *burstRelay) toPlugin(up, down net.Conn) {
	buf := make([]byte, 1<<20)
	for {
		n, err := up.Read(buf)
		if n > 0 {
			if werr := r.pass(down, buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or closed: the relay ends either way
		}
	}
}

func (r *burstRelay) pass(down net.Conn, b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.want == 0 {
		_, err := down.Write(b)
		return err
	}
	r.held = append(r.held, b...)
	if len(r.held) < r.want {
		return nil
	}
	held := r.held
	r.held, r.want = nil, 0
	_, err := down.Write(held)
	return err
}
