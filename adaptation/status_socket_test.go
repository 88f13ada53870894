// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// statusClient talks HTTP to the status socket at path, over at most
// MaxStatusClients connections.
func statusClient(path string) *http.Client {
	return &http.Client{
		Timeout: waitLimit,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", path)
			},
			MaxConnsPerHost: adaptation.MaxStatusClients,
		},
	}
}

func get(t *testing.T, c *http.Client, method, path string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://nri"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rsp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer rsp.Body.Close()
	body, err := io.ReadAll(rsp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return rsp.StatusCode, body
}

// The status socket serves Status and container records to its owner
// alone, refuses other paths and methods, serves concurrent readers, and
// is gone, with every goroutine it started, once Stop returns.
func TestStatusSocket(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir, err := os.MkdirTemp("", "nrk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "status", "nri-status.sock")
	e := newEnv(t, adaptation.WithStatusSocket(path), adaptation.WithContainerRecords(8))
	e.preinstall("10", "labels", testplugin.Config{Events: "createcontainer", Annotations: map[string]string{"team": "a"}})
	e.start()
	e.waitPlugins("10-labels")
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
			t.Fatalf("status socket: %v, %v; want a socket with mode 0600", fi.Mode(), err)
		}
	}
	pod := testPod("ss")
	_, err = e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("ss-1", pod)})
	must(t, err)

	c := statusClient(path)
	code, body := get(t, c, http.MethodGet, "/v1/status")
	var st adaptation.Status
	if code != http.StatusOK || json.Unmarshal(body, &st) != nil || len(st.Plugins) != 1 || st.Plugins[0].Plugin != "10-labels" {
		t.Fatalf("GET /v1/status: %d %s", code, body)
	}
	code, body = get(t, c, http.MethodGet, "/v1/containers/ss-1")
	var rec adaptation.ContainerRecord
	if code != http.StatusOK || json.Unmarshal(body, &rec) != nil || len(rec.Fields) != 1 || rec.Fields[0].Plugin != "10-labels" {
		t.Fatalf("GET /v1/containers/ss-1: %d %s", code, body)
	}
	for _, r := range []struct {
		method, path string
		code         int
	}{
		{http.MethodGet, "/v1/containers/unknown", http.StatusNotFound},
		{http.MethodGet, "/v1/other", http.StatusNotFound},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodPost, "/v1/status", http.StatusMethodNotAllowed},
		{http.MethodDelete, "/v1/containers/ss-1", http.StatusMethodNotAllowed},
		{http.MethodPut, "/v1/status", http.StatusMethodNotAllowed},
	} {
		if code, body := get(t, c, r.method, r.path); code != r.code {
			t.Errorf("%s %s: %d %s, want %d", r.method, r.path, code, body, r.code)
		}
	}

	// Four times as many readers as connections served at once.
	var wg sync.WaitGroup
	errs := make(chan error, 4*adaptation.MaxStatusClients)
	for range 4 * adaptation.MaxStatusClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rsp, err := c.Get("http://nri/v1/status")
			if err != nil {
				errs <- err
				return
			}
			defer rsp.Body.Close()
			var st adaptation.Status
			if err := json.NewDecoder(rsp.Body).Decode(&st); err != nil || rsp.StatusCode != http.StatusOK {
				errs <- errors.Join(err, errors.New(rsp.Status))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent reader: %v", err)
	}
	c.CloseIdleConnections()

	e.stop()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("status socket left after Stop: %v", err)
	}
}

// Connections beyond MaxStatusClients are closed at once, and served again
// once others closed.
func TestStatusSocketBoundsClients(t *testing.T) {
	dir, err := os.MkdirTemp("", "nrk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	e := newEnv(t, adaptation.WithStatusSocket(path), adaptation.WithDisabledExternalConnections())
	e.start()
	var held []net.Conn
	for range adaptation.MaxStatusClients {
		held = append(held, dialSocket(t, path))
	}
	// Each held connection is served: a request on it is answered.
	for _, conn := range held[:1] {
		if _, err := io.WriteString(conn, "GET /v1/status HTTP/1.1\r\nHost: nri\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 12)
		_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
		if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "HTTP/1.1 200" {
			t.Fatalf("a served connection read %q, %v", buf, err)
		}
	}
	extra := dialSocket(t, path)
	_ = extra.SetReadDeadline(time.Now().Add(waitLimit))
	if n, err := extra.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("the connection beyond the bound read %d bytes, %v; want it closed", n, err)
	}
	extra.Close()
	for _, conn := range held {
		conn.Close()
	}
	c := statusClient(path)
	defer c.CloseIdleConnections()
	// Slots come back as the server sees the held connections close.
	deadline := time.Now().Add(waitLimit)
	for {
		rsp, err := c.Get("http://nri/v1/status")
		if err == nil {
			rsp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not served after the other clients left: %v", err)
		}
		c.CloseIdleConnections()
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// A status socket path that holds something else refuses Start, before
// any plugin was launched.
func TestStatusSocketBadPath(t *testing.T) {
	dir, err := os.MkdirTemp("", "nrk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "file")
	writeFile(t, path, "data", 0o600)
	e := newEnv(t, adaptation.WithStatusSocket(path))
	e.preinstall("10", "early", testplugin.Config{Events: "createcontainer"})
	err = e.a.Start(context.Background())
	if !errors.Is(err, adaptation.ErrBadSocketPath) {
		t.Fatalf("Start: %v, want ErrBadSocketPath", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "data" {
		t.Error("the file at the status socket path was changed")
	}
	if recs := e.records(); len(recs) != 0 {
		t.Errorf("the pre-installed plugin was launched before the bad status socket failed Start: it logged %+v", recs)
	}
	if changes := e.a.Status().RecentChanges; len(changes) != 0 {
		t.Errorf("plugin changes %+v, want none: nothing was to start", changes)
	}
}
