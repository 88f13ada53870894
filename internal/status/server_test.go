// SPDX-License-Identifier: Apache-2.0

package status

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

const waitLimit = 10 * time.Second

type testRecord struct {
	ID string `json:"id"`
}

// serve starts a Server on a loopback listener, answering a status
// snapshot and the record of container "c1" alone.
func serve(t *testing.T) (*Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve(l, Answers{
		Status: func() any { return map[string]int{"schema_version": 1} },
		Record: func(id string) (any, bool) {
			if id != "c1" {
				return nil, false
			}
			return testRecord{ID: id}, true
		},
	})
	return s, l.Addr().String()
}

// request sends one request on conn and reads its answer; conn stays open.
func request(t *testing.T, conn net.Conn, method, path string) (*http.Response, []byte) {
	t.Helper()
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	if _, err := io.WriteString(conn, method+" "+path+" HTTP/1.1\r\nHost: nri\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, path, nil)
	rsp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer rsp.Body.Close()
	body, err := io.ReadAll(rsp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return rsp, body
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, waitLimit)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func TestServerAnswers(t *testing.T) {
	s, addr := serve(t)
	defer s.Stop()
	conn := dial(t, addr)
	defer conn.Close()

	rsp, body := request(t, conn, http.MethodGet, "/v1/status")
	var st map[string]int
	if rsp.StatusCode != http.StatusOK || json.Unmarshal(body, &st) != nil || st["schema_version"] != 1 {
		t.Errorf("GET /v1/status: %d %s", rsp.StatusCode, body)
	}
	if ct := rsp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET /v1/status: content type %q, want application/json", ct)
	}
	rsp, body = request(t, conn, http.MethodGet, "/v1/containers/c1")
	var rec testRecord
	if rsp.StatusCode != http.StatusOK || json.Unmarshal(body, &rec) != nil || rec.ID != "c1" {
		t.Errorf("GET /v1/containers/c1: %d %s", rsp.StatusCode, body)
	}
	rsp, body = request(t, conn, http.MethodGet, "/v1/containers/c2")
	var missing map[string]string
	if rsp.StatusCode != http.StatusNotFound || json.Unmarshal(body, &missing) != nil || missing["error"] == "" {
		t.Errorf("GET /v1/containers/c2: %d %s, want 404 with an error", rsp.StatusCode, body)
	}
	for _, r := range []struct {
		method, path string
		code         int
	}{
		{http.MethodGet, "/v1/other", http.StatusNotFound},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/v1/containers/", http.StatusNotFound},
		{http.MethodPost, "/v1/status", http.StatusMethodNotAllowed},
		{http.MethodPut, "/v1/status", http.StatusMethodNotAllowed},
		{http.MethodDelete, "/v1/containers/c1", http.StatusMethodNotAllowed},
	} {
		rsp, body := request(t, conn, r.method, r.path)
		if rsp.StatusCode != r.code {
			t.Errorf("%s %s: %d %s, want %d", r.method, r.path, rsp.StatusCode, body, r.code)
		}
		if allow := rsp.Header.Get("Allow"); r.code == http.StatusMethodNotAllowed && allow != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q, want GET, HEAD", r.method, r.path, allow)
		}
	}
}

// The documented bounds on a client's time.
func TestServerTimeouts(t *testing.T) {
	s, _ := serve(t)
	defer s.Stop()
	if s.srv.ReadHeaderTimeout != 5*time.Second || s.srv.ReadTimeout != 5*time.Second || s.srv.WriteTimeout != 10*time.Second || s.srv.IdleTimeout != 5*time.Second {
		t.Errorf("timeouts: header %v, read %v, write %v, idle %v; want 5s to send the request, 10s to read the answer, 5s idle",
			s.srv.ReadHeaderTimeout, s.srv.ReadTimeout, s.srv.WriteTimeout, s.srv.IdleTimeout)
	}
}

// A connection beyond MaxClients is closed as soon as it is accepted.
func TestServerBoundsClients(t *testing.T) {
	s, addr := serve(t)
	defer s.Stop()
	var held []net.Conn
	defer func() {
		for _, conn := range held {
			conn.Close()
		}
	}()
	for range MaxClients {
		conn := dial(t, addr)
		held = append(held, conn)
		// Answered: accepted, and holding its slot while kept alive.
		if rsp, _ := request(t, conn, http.MethodGet, "/v1/status"); rsp.StatusCode != http.StatusOK {
			t.Fatalf("a connection within the bound: %d", rsp.StatusCode)
		}
	}
	extra := dial(t, addr)
	defer extra.Close()
	_ = extra.SetReadDeadline(time.Now().Add(waitLimit))
	if n, err := extra.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("the connection beyond the bound read %d bytes, %v; want it closed", n, err)
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// A slot comes back when its connection is closed, so that the next
// connection is served.
func TestLimitListenerReleasesSlots(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newLimitListener(inner, 2)
	defer l.Close()
	accepted := make(chan net.Conn)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	next := func() net.Conn {
		select {
		case c := <-accepted:
			return c
		case <-time.After(waitLimit):
			t.Fatal("a connection within the bound was not accepted")
			return nil
		}
	}
	addr := inner.Addr().String()
	first, second := dial(t, addr), dial(t, addr)
	defer first.Close()
	defer second.Close()
	a, b := next(), next()
	defer b.Close()
	over := dial(t, addr)
	defer over.Close()
	_ = over.SetReadDeadline(time.Now().Add(waitLimit))
	if n, err := over.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("the connection beyond the bound read %d bytes, %v; want it closed", n, err)
	}
	a.Close()
	a.Close() // a second Close gives back no second slot
	third := dial(t, addr)
	defer third.Close()
	next().Close()
	fourth := dial(t, addr) // the slot the third gave back
	defer fourth.Close()
	c := next()
	defer c.Close()
	fifth := dial(t, addr)
	defer fifth.Close()
	_ = fifth.SetReadDeadline(time.Now().Add(waitLimit))
	if n, err := fifth.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("a connection beyond the bound after the slots were reused read %d bytes, %v; want it closed", n, err)
	}
}

// Stop closes the listener and every connection, and returns with no
// goroutine of the server left.
func TestServerStop(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, addr := serve(t)
	conn := dial(t, addr)
	defer conn.Close()
	if rsp, _ := request(t, conn, http.MethodGet, "/v1/status"); rsp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/status: %d", rsp.StatusCode)
	}
	s.Stop()
	_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
	if n, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("a kept-alive connection read %d bytes, %v after Stop; want it closed", n, err)
	}
	if c, err := net.DialTimeout("tcp", addr, waitLimit); err == nil {
		c.Close()
		t.Error("the listener still accepts after Stop")
	}
	var none *Server
	none.Stop() // a Server never started is stopped already
}
