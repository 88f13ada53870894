// SPDX-License-Identifier: Apache-2.0

package interoptest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/mux"
)

// waitTimeout bounds every wait on the plugin process or a reply.
const waitTimeout = 30 * time.Second

// peer is a reference-stub plugin process connected to a minimal runtime
// side built only from our mux and our generated ttrpc services: our Runtime
// service on mux connection 2, a Plugin client on connection 1.
type peer struct {
	t       *testing.T
	logPath string

	cmd     *exec.Cmd
	output  *syncBuffer // the plugin's stdout and stderr
	exited  chan struct{}
	waitErr error // valid once exited is closed

	runtime *fakeRuntime
	mux     *mux.Mux
	server  *ttrpc.Server
	served  chan error
	client  *ttrpc.Client
	plugin  api.PluginService

	closeOnce sync.Once
}

// startPeer starts the modern plugin as an external plugin named
// 42-interop, with extra flags, accepts its connection and sets up the
// runtime side. It does not wait for registration.
func startPeer(t *testing.T, flags ...string) *peer {
	t.Helper()
	return startPeerWith(t, peerOptions{}, flags...)
}

// peerOptions change how startPeerWith runs the plugin and connects to it.
type peerOptions struct {
	env   []string                // extra KEY=VALUE environment of the plugin process
	trunk func(net.Conn) net.Conn // wraps our end of the trunk before the mux takes it
}

// startPeerWith is startPeer with options.
func startPeerWith(t *testing.T, o peerOptions, flags ...string) *peer {
	t.Helper()
	bin := interoptest.Binary(t, "modern")

	// A short directory: a unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "nri")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "nri.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	p := &peer{
		t:       t,
		logPath: filepath.Join(t.TempDir(), "events.log"),
		output:  &syncBuffer{},
		exited:  make(chan struct{}),
		runtime: &fakeRuntime{registered: make(chan *api.RegisterPluginRequest, 1)},
		served:  make(chan error, 1),
	}
	args := append([]string{"-name", "interop", "-idx", "42", "-socket", sock, "-log", p.logPath}, flags...)
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(withoutNRIEnv(os.Environ()), o.env...)
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.close(false) })

	type accepted struct {
		conn net.Conn
		err  error
	}
	acceptC := make(chan accepted, 1)
	go func() {
		conn, err := l.Accept()
		acceptC <- accepted{conn, err}
	}()
	var conn net.Conn
	select {
	case a := <-acceptC:
		if a.err != nil {
			t.Fatalf("accept: %v", a.err)
		}
		conn = a.conn
	case <-p.exited:
		l.Close()
		if a := <-acceptC; a.conn != nil {
			a.conn.Close()
		}
		t.Fatalf("plugin exited before connecting: %v\n%s", p.waitErr, p.output)
	case <-time.After(waitTimeout):
		l.Close()
		if a := <-acceptC; a.conn != nil {
			a.conn.Close()
		}
		t.Fatalf("plugin did not connect within %v\n%s", waitTimeout, p.output)
	}

	if o.trunk != nil {
		conn = o.trunk(conn)
	}
	// As the reference runtime does it: reader blocked until the Runtime
	// service is served and the Plugin client is open.
	p.mux = mux.New(conn, mux.WithReaderBlocked())
	rl, err := p.mux.Listen(mux.RuntimeServiceConn)
	if err != nil {
		t.Fatalf("listen on mux: %v", err)
	}
	p.server, err = ttrpc.NewServer()
	if err != nil {
		t.Fatalf("ttrpc server: %v", err)
	}
	api.RegisterRuntimeService(p.server, p.runtime)
	go func() { p.served <- p.server.Serve(context.Background(), rl) }()
	pc, err := p.mux.Open(mux.PluginServiceConn)
	if err != nil {
		t.Fatalf("open on mux: %v", err)
	}
	p.client = ttrpc.NewClient(pc)
	p.plugin = api.NewPluginClient(p.client)
	p.mux.Unblock()
	return p
}

// registered waits for the plugin's RegisterPlugin request.
func (p *peer) registered() *api.RegisterPluginRequest {
	p.t.Helper()
	select {
	case req := <-p.runtime.registered:
		return req
	case <-p.exited:
		p.t.Fatalf("plugin exited before registering: %v\n%s", p.waitErr, p.output)
	case <-time.After(waitTimeout):
		p.t.Fatalf("no RegisterPlugin within %v\n%s", waitTimeout, p.output)
	}
	return nil
}

// ctx returns a context with the wait deadline, cancelled at the test's end.
func (p *peer) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	p.t.Cleanup(cancel)
	return ctx
}

// close shuts the runtime side down, which closes the trunk, and waits for
// the plugin to exit; check makes a non-clean exit fail the test. It is
// idempotent; the test's cleanup calls it too, to kill a plugin left
// running by a failed test.
func (p *peer) close(check bool) {
	p.t.Helper()
	p.closeOnce.Do(func() {
		if p.client != nil {
			p.client.Close()
		}
		if p.server != nil {
			p.server.Close()
		}
		if p.mux != nil {
			p.mux.Close()
		} else {
			// Never connected: nothing would make it exit.
			p.cmd.Process.Kill()
		}
		if p.server != nil {
			select {
			case err := <-p.served:
				if check && !errors.Is(err, ttrpc.ErrServerClosed) {
					p.t.Errorf("Runtime service: Serve returned %v, want %v", err, ttrpc.ErrServerClosed)
				}
			case <-time.After(waitTimeout):
				p.t.Errorf("Runtime service: Serve did not return within %v of Close", waitTimeout)
			}
		}
		select {
		case <-p.exited:
			if check && p.waitErr != nil {
				p.t.Errorf("plugin did not exit cleanly when the connection closed: %v\n%s", p.waitErr, p.output)
			}
		case <-time.After(waitTimeout):
			p.cmd.Process.Kill()
			<-p.exited
			p.t.Errorf("plugin did not exit within %v of the connection closing; killed\n%s", waitTimeout, p.output)
		}
	})
}

// logRecord is one line of the plugin's event log (testdata/interop/README.md).
type logRecord struct {
	Plugin        string   `json:"plugin"`
	Event         string   `json:"event"`
	RPC           string   `json:"rpc"`
	Pod           string   `json:"pod"`
	Container     string   `json:"container"`
	Stub          string   `json:"stub"`
	Runtime       string   `json:"runtime"`
	Mask          int32    `json:"mask"`
	FailurePolicy string   `json:"failure_policy"`
	Pods          *int     `json:"pods"`
	Containers    *int     `json:"containers"`
	PodIDs        []string `json:"pod_ids"`
	ContainerIDs  []string `json:"container_ids"`
	Error         string   `json:"error"`
}

// events reads the plugin's event log. A line is written before the
// plugin's handler returns, so it is there once the RPC has completed.
func (p *peer) events() []logRecord {
	p.t.Helper()
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		p.t.Fatalf("event log: %v", err)
	}
	var recs []logRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		var r logRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			p.t.Fatalf("event log line %q: %v", truncate(sc.Text(), 200), err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		p.t.Fatalf("event log: %v", err)
	}
	return recs
}

// event returns the only log record of the named event.
func (p *peer) event(name string) logRecord {
	p.t.Helper()
	var found []logRecord
	for _, r := range p.events() {
		if r.Event == name {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		p.t.Fatalf("event log has %d %s records, want 1", len(found), name)
	}
	r := found[0]
	if r.Plugin != "42-interop" || r.Stub != "v0.12.5" || r.Error != "" {
		p.t.Errorf("%s record: plugin %q stub %q error %q, want 42-interop, v0.12.5, no error", name, r.Plugin, r.Stub, r.Error)
	}
	return r
}

// fakeRuntime is our side's Runtime service: it records the registration.
type fakeRuntime struct {
	registered chan *api.RegisterPluginRequest
}

func (r *fakeRuntime) RegisterPlugin(_ context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	select {
	case r.registered <- req:
		return &api.Empty{}, nil
	default:
		return nil, errors.New("plugin registered twice")
	}
}

func (r *fakeRuntime) UpdateContainers(context.Context, *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	return nil, errors.New("UpdateContainers not expected in this test")
}

// withoutNRIEnv drops the variables that the stub (NRI_PLUGIN_*) or the
// test plugin (NRI_INTEROP_*) would read.
func withoutNRIEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NRI_") {
			out = append(out, kv)
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for the exec copier and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return fmt.Sprintf("--- plugin output ---\n%s--- end of plugin output ---", b.buf.String())
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
