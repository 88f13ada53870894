// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// requestKey is a runtime's context key for the fields it logs with.
type requestKey struct{}

func withRequest(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestKey{}, id)
}

func requestOf(ctx context.Context) string {
	id, _ := ctx.Value(requestKey{}).(string)
	return id
}

// startFailingPlugin starts an external plugin process that fails every
// container creation, and waits until it has joined.
func startFailingPlugin(t *testing.T, e *env) {
	t.Helper()
	e.start()
	e.external("10", "failer", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
		"CreateContainer": {Fail: "no creation today"},
	}})
	e.waitPlugins("10-failer")
}

func createFailing(t *testing.T, e *env, ctx context.Context) {
	t.Helper()
	pod := testPod("cl")
	if err := e.a.RunPodSandbox(ctx, &adaptation.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	req := &adaptation.CreateContainerRequest{Pod: pod, Container: testContainer("cl-c", pod)}
	if _, err := e.a.CreateContainer(ctx, req); err == nil {
		t.Fatal("CreateContainer succeeded though 10-failer failed it")
	}
}

// TestLoggerFromContextCarriesTheCallersFields: with WithLoggerFromContext,
// the line about a plugin failing an event carries the fields the runtime
// derives from the context it passed to the event method, and nrikit's own;
// Start's lines carry Start's.
func TestLoggerFromContextCarriesTheCallersFields(t *testing.T) {
	logger, hook := logtest.NewNullLogger()
	logger.SetLevel(logrus.DebugLevel)
	fromContext := func(ctx context.Context) *logrus.Entry {
		e := logrus.NewEntry(logger)
		if id := requestOf(ctx); id != "" {
			e = e.WithField("request", id)
		}
		return e
	}
	e := newEnv(t)
	e = newEnvAt(t, e, adaptation.WithLoggerFromContext(fromContext),
		adaptation.WithPluginPath(filepath.Join(e.dir, "no-such-dir")))
	if err := e.a.Start(withRequest(context.Background(), "start-1")); err != nil {
		t.Fatal(err)
	}
	assertLine(t, hook, "nrikit: no pre-installed plugins: the plugin directory does not exist",
		logrus.Fields{"request": "start-1"})

	e.external("10", "failer", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
		"CreateContainer": {Fail: "no creation today"},
	}})
	e.waitPlugins("10-failer")
	createFailing(t, e, withRequest(context.Background(), "create-7"))
	assertLine(t, hook, "nrikit: plugin failed the event; the operation fails",
		logrus.Fields{"request": "create-7", "plugin": "10-failer", "event": "CreateContainer"})
	for _, line := range hook.AllEntries() {
		if line.Message == "nrikit: plugin connected" && line.Data["request"] != nil {
			t.Errorf("a line of nrikit's own got a caller's field: %v", line.Data)
		}
	}
}

// TestLoggerFromContextOnADrop: the line about a plugin dropped for timing
// out on an event carries the event caller's fields.
func TestLoggerFromContextOnADrop(t *testing.T) {
	logger, hook := logtest.NewNullLogger()
	fromContext := func(ctx context.Context) *logrus.Entry {
		return logrus.NewEntry(logger).WithField("request", requestOf(ctx))
	}
	e := newEnv(t, adaptation.WithLoggerFromContext(fromContext), adaptation.WithRequestTimeout(300*time.Millisecond))
	e.start()
	e.external("10", "hanger", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{
		"CreateContainer": {Hang: true},
	}})
	e.waitPlugins("10-hanger")
	pod := testPod("dr")
	ctx := withRequest(context.Background(), "create-3")
	req := &adaptation.CreateContainerRequest{Pod: pod, Container: testContainer("dr-c", pod)}
	if _, err := e.a.CreateContainer(ctx, req); err != nil {
		t.Fatalf("CreateContainer failed for a plugin's timeout under the default policy: %v", err)
	}
	assertLine(t, hook, "nrikit: plugin dropped",
		logrus.Fields{"request": "create-3", "plugin": "10-hanger", "reason": "timeout during CreateContainer"})
}

func assertLine(t *testing.T, hook *logtest.Hook, msg string, want logrus.Fields) {
	t.Helper()
	for _, line := range hook.AllEntries() {
		if line.Message == msg && hasFields(line.Data, want) {
			return
		}
	}
	var got []string
	for _, line := range hook.AllEntries() {
		got = append(got, fmt.Sprintf("%q %v", line.Message, line.Data))
	}
	t.Errorf("no line %q with %v; lines:\n%s", msg, want, strings.Join(got, "\n"))
}

func hasFields(data, want logrus.Fields) bool {
	for k, v := range want {
		if data[k] != v {
			return false
		}
	}
	return true
}

// contextLine is one call of a reference-shaped logger.
type contextLine struct {
	level, request, text string
}

// recordingContextLogger is a runtime's shim for the reference's pkg/log
// Logger, such as moby's: it takes the request from the context.
type recordingContextLogger struct {
	mu    sync.Mutex
	lines []contextLine
}

func (l *recordingContextLogger) record(level string, ctx context.Context, format string, args []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, contextLine{level, requestOf(ctx), "NRI: " + fmt.Sprintf(format, args...)})
}

func (l *recordingContextLogger) Debugf(ctx context.Context, format string, args ...any) {
	l.record("debug", ctx, format, args)
}

func (l *recordingContextLogger) Infof(ctx context.Context, format string, args ...any) {
	l.record("info", ctx, format, args)
}

func (l *recordingContextLogger) Warnf(ctx context.Context, format string, args ...any) {
	l.record("warn", ctx, format, args)
}

func (l *recordingContextLogger) Errorf(ctx context.Context, format string, args ...any) {
	l.record("error", ctx, format, args)
}

func (l *recordingContextLogger) snapshot() []contextLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]contextLine(nil), l.lines...)
}

func (l *recordingContextLogger) find(level, prefix string) (contextLine, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if line.level == level && strings.HasPrefix(line.text, prefix) {
			return line, true
		}
	}
	return contextLine{}, false
}

// TestContextLoggerGetsTheCallersContext: a logger shaped like the
// reference's gets nrikit's lines at their level, with their fields in the
// text; the line about an event gets the event method's context, and a
// line of nrikit's own (a plugin joining) gets none of the caller's.
func TestContextLoggerGetsTheCallersContext(t *testing.T) {
	rec := &recordingContextLogger{}
	e := newEnv(t)
	e = newEnvAt(t, e, adaptation.WithContextLogger(rec))
	startFailingPlugin(t, e)
	createFailing(t, e, withRequest(context.Background(), "create-9"))

	failed, ok := rec.find("warn", "NRI: nrikit: plugin failed the event")
	if !ok {
		t.Fatalf("no warning about the failed event; lines: %v", rec.snapshot())
	}
	if failed.request != "create-9" {
		t.Errorf("the failed event's line got request %q, want create-9 from the caller's context", failed.request)
	}
	for _, field := range []string{"plugin=10-failer", "event=CreateContainer"} {
		if !strings.Contains(failed.text, " "+field) {
			t.Errorf("line %q lacks %s", failed.text, field)
		}
	}
	connected, ok := rec.find("info", "NRI: nrikit: plugin connected")
	if !ok {
		t.Fatalf("no line about the plugin joining; lines: %v", rec.snapshot())
	}
	if connected.request != "" {
		t.Errorf("a line of nrikit's own got request %q", connected.request)
	}
}

func TestContextLoggerOptionsRefuseNil(t *testing.T) {
	for name, opt := range map[string]adaptation.Option{
		"WithContextLogger(nil)":           adaptation.WithContextLogger(nil),
		"WithLoggerFromContext(nil)":       adaptation.WithLoggerFromContext(nil),
		"WithLoggerFromContext(nil entry)": adaptation.WithLoggerFromContext(func(context.Context) *logrus.Entry { return nil }),
	} {
		if _, err := adaptation.New("rt", "v1", nil, nil, opt); err == nil {
			t.Errorf("New with %s succeeded", name)
		}
	}
}
