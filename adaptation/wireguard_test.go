// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/codes"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// The log's names for the two mux connections.
const (
	pluginConn  = "1 (plugin service)"
	runtimeConn = "2 (runtime service)"
)

// violation is one kind of message that nrikit does not speak.
type violation struct {
	name string
	conn string // the mux connection it goes to, as the log names it
	send func(p *rawPlugin, stream uint32)
	// wantCode is how the runtime answers on the stream, if it does.
	wantCode *codes.Code
	reason   string // part of the log line
}

func code(c codes.Code) *codes.Code { return &c }

var violations = []violation{
	{
		name: "data for a stream never opened", conn: runtimeConn, reason: "dropped a data message",
		send: func(p *rawPlugin, s uint32) { p.send(p.runtime, ttrpcMessage(s, 3, 0, []byte{0x0a, 0})) },
	},
	{
		// ttrpc (v1.2.10 too) dereferences a nil stream handler here.
		name: "data for the stream of a call in flight", conn: runtimeConn, reason: "dropped a data message",
		send: func(p *rawPlugin, s uint32) {
			p.send(p.runtime,
				ttrpcMessage(s, 1, 0, call(runtimeService, "UpdateContainers", &api.UpdateContainersRequest{})),
				ttrpcMessage(s, 3, 0x01, []byte{0x0a, 0}))
			p.response(s)
		},
	},
	{
		name: "request opening a stream", conn: runtimeConn, reason: "opens a stream", wantCode: code(codes.Unimplemented),
		send: func(p *rawPlugin, s uint32) {
			p.send(p.runtime, ttrpcMessage(s, 1, 0x02, call(runtimeService, "UpdateContainers", &api.UpdateContainersRequest{})))
		},
	},
	{
		name: "unknown message type", conn: runtimeConn, reason: "dropped a message of unknown type 127",
		send: func(p *rawPlugin, s uint32) { p.send(p.runtime, ttrpcMessage(s, 0x7f, 0, []byte("junk"))) },
	},
	{
		name: "response to the server", conn: runtimeConn, reason: "dropped a response",
		send: func(p *rawPlugin, s uint32) { p.send(p.runtime, ttrpcMessage(s, 2, 0, reply(&api.Empty{}))) },
	},
	{
		name: "unknown method", conn: runtimeConn, reason: "does not serve", wantCode: code(codes.Unimplemented),
		send: func(p *rawPlugin, s uint32) {
			p.send(p.runtime, ttrpcMessage(s, 1, 0, call(runtimeService, "Nonesuch", nil)))
		},
	},
	{
		name: "unknown service", conn: runtimeConn, reason: "does not serve", wantCode: code(codes.Unimplemented),
		send: func(p *rawPlugin, s uint32) {
			p.send(p.runtime, ttrpcMessage(s, 1, 0, call(pluginService, "Configure", nil)))
		},
	},
	{
		name: "response to a call never made", conn: pluginConn, reason: "call nrikit did not make",
		send: func(p *rawPlugin, s uint32) { p.send(p.plugin, ttrpcMessage(s, 2, 0, reply(&api.Empty{}))) },
	},
	{
		name: "data to the client", conn: pluginConn, reason: "dropped a data message",
		send: func(p *rawPlugin, s uint32) { p.send(p.plugin, ttrpcMessage(s, 3, 0, []byte{0x0a, 0})) },
	},
	{
		name: "request to the client", conn: pluginConn, reason: "dropped a request",
		send: func(p *rawPlugin, s uint32) {
			p.send(p.plugin, ttrpcMessage(s, 1, 0, call(pluginService, "Configure", nil)))
		},
	},
	{
		name: "unknown message type to the client", conn: pluginConn, reason: "dropped a message of unknown type 0",
		send: func(p *rawPlugin, s uint32) { p.send(p.plugin, ttrpcMessage(s, 0, 0, nil)) },
	},
}

// TestProtocolViolations: whatever a peer sends that is not a unary call or
// its answer, on either connection, before or after it registers, is
// dropped or refused with one log line naming the peer and the connection,
// and the runtime, and the offender's own connection, keep working.
func TestProtocolViolations(t *testing.T) {
	for _, registered := range []bool{false, true} {
		phase := map[bool]string{false: "before registration", true: "after registration"}[registered]
		t.Run(phase, func(t *testing.T) {
			checkFDs(t)
			e := newEnv(t, adaptation.WithRequestTimeout(waitLimit)) // no timing in this test
			e.start()
			e.external("10", "healthy", testplugin.Config{})
			e.waitPlugins("10-healthy")
			for i, v := range violations {
				t.Run(v.name, func(t *testing.T) {
					stream := uint32(101 + 2*i)
					idx, name := fmt.Sprintf("%02d", 50+i), "raw"
					p := dialRaw(t, e.socket)
					offender := "unregistered"
					if registered {
						p.register(1, idx, name, api.MaskOf(api.Event_RUN_POD_SANDBOX))
						offender = idx + "-" + name
					}
					v.send(p, stream)
					if v.wantCode != nil {
						if got := codes.Code(p.response(stream).GetStatus().GetCode()); got != *v.wantCode {
							t.Errorf("runtime answered %v, want %v", got, *v.wantCode)
						}
					}
					lines := e.waitLogged(logrus.Fields{"conn": v.conn, "stream": stream, "plugin": offender, "pid": os.Getpid()})
					if len(lines) != 1 || !strings.Contains(lines[0].Message, v.reason) {
						e.dumpLog()
						t.Fatalf("log lines %v, want one saying %q", messages(lines), v.reason)
					}
					if !registered {
						p.register(1001, idx, name, api.MaskOf(api.Event_RUN_POD_SANDBOX))
					}
					e.waitPluginsInclude(idx + "-" + name)
					before := testplugin.Count(e.records(), "healthy", "RunPodSandbox")
					e.runPodThrough(t, p, fmt.Sprintf("pod-%d", i))
					if got := testplugin.Count(e.records(), "healthy", "RunPodSandbox"); got != before+1 {
						t.Fatalf("the healthy plugin got %d RunPodSandbox, want %d", got, before+1)
					}
					p.close()
					e.waitPlugins("10-healthy")
				})
			}
		})
	}
}

// runPodThrough runs a pod while p, which takes RunPodSandbox only,
// answers, and then removes it, so that no later plugin is told of it.
func (e *env) runPodThrough(t *testing.T, p *rawPlugin, id string) {
	t.Helper()
	ctx, pod := context.Background(), testPod(id)
	done := make(chan error, 1)
	go func() { done <- e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}) }()
	p.answer(p.request("RunPodSandbox"), &api.RunPodSandboxResponse{})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunPodSandbox: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("RunPodSandbox did not return")
	}
	must(t, e.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: pod}))
	must(t, e.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: pod}))
}

func messages(entries []*logrus.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Message)
	}
	return out
}

// checkFDs checks, when the test and its cleanups are done, that the
// process has no more open file descriptors than when it began. (Fewer is
// no leak: an earlier test's connection may finish closing meanwhile.)
func checkFDs(t *testing.T) {
	t.Helper()
	before, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return // not on Linux
	}
	t.Cleanup(func() {
		after, err := os.ReadDir("/proc/self/fd")
		if err == nil && len(after) > len(before) {
			t.Errorf("%d file descriptors open, %d before the test: %v", len(after), len(before), fdTargets(after))
		}
	})
}

func fdTargets(fds []os.DirEntry) []string {
	var out []string
	for _, fd := range fds {
		target, _ := os.Readlink("/proc/self/fd/" + fd.Name())
		out = append(out, fd.Name()+"->"+target)
	}
	return out
}
