// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/testplugin"
)

func TestMain(m *testing.M) {
	// The sample and test plugins are this test binary, re-executed.
	testplugin.MaybeRunChild()
	if os.Getenv(asNritest) != "" {
		main() // a test runs nritest as a process of its own
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		interoptest.Cleanup() // the WASM plugin built for TestPluginPathWASM
		os.Exit(code)
	}))
}

// testLimit bounds every run and wait of a test; only reached when broken.
const testLimit = 60 * time.Second

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

// runCmd runs the command in-process.
func runCmd(t *testing.T, args ...string) result {
	t.Helper()
	return runWith(&lockedWriter{w: &bytes.Buffer{}}, args...)
}

func runWith(stderr *lockedWriter, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	return runCtx(ctx, stderr, args...)
}

// runCtx runs the command in-process with the context a signal would end.
func runCtx(ctx context.Context, stderr *lockedWriter, args ...string) result {
	var stdout bytes.Buffer
	code := run(ctx, args, &stdout, stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// lockedWriter is a goroutine-safe stderr (nrikit logs from many).
type lockedWriter struct {
	mu     sync.Mutex
	w      *bytes.Buffer
	signal string        // closes seen once written
	seen   chan struct{} // nil unless signal is set
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.seen != nil && strings.Contains(l.w.String(), l.signal) {
		close(l.seen)
		l.seen = nil
	}
	return n, err
}

// watch returns a channel closed once the output holds signal, replacing
// any earlier watch.
func (l *lockedWriter) watch(signal string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := make(chan struct{})
	if strings.Contains(l.w.String(), signal) {
		close(seen)
		return seen
	}
	l.signal, l.seen = signal, seen
	return seen
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// row is one event row of the text report.
type row struct {
	event, target, result string
	plugins               []string // the step's own calls, in order
}

var (
	rowRE  = regexp.MustCompile(`^(\d+)\s+(\w+)\s+(\S+)\s+(ok|FAILED|skipped)\b(.*)$`)
	callRE = regexp.MustCompile(`(\d\d-[\w.+-]+) (ok|error|timeout|lost|canceled|rejected) [\d.]+ms`)
)

// textRows parses the EVENTS table of a text report.
func textRows(t *testing.T, out string) []row {
	t.Helper()
	var rows []row
	for _, line := range strings.Split(out, "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r := row{event: m[2], target: m[3], result: m[4]}
		for _, c := range callRE.FindAllStringSubmatch(m[5], -1) {
			r.plugins = append(r.plugins, c[1])
		}
		rows = append(rows, r)
	}
	return rows
}

// jsonRows is textRows of a JSON report.
func jsonRows(rep *Report) []row {
	var rows []row
	for _, e := range rep.Events {
		r := row{event: e.Event, target: e.Target, result: e.Result}
		for _, c := range e.Calls {
			if c.Event == "" {
				r.plugins = append(r.plugins, c.Plugin)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// parseJSON reads a JSON report, after checking it against the schema.
func parseJSON(t *testing.T, out string) *Report {
	t.Helper()
	checkSchema(t, out)
	var rep Report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, out)
	}
	return &rep
}

// shortTempDir is a temp dir with a path short enough for a unix socket.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nrt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--bogus"},
		{"extra"},
		{"--wait", "1"},
		{"--wait", "-1", "--socket", "/tmp/x.sock"},
		{"--wait", "x"},
		{"--request-timeout", "0s"},
		{"--registration-timeout", "-1s"},
		{"--sync-timeout", "0s"},
		{"--sync-timeout", "soon"},
		{"--wait-timeout", "-1s", "--socket", "/tmp/x.sock"},
		{"--linger", "-1s"},
		{"--linger", "soon"},
		{"--pod-annotation", "novalue"},
		{"--pod-annotation", "=v"},
		{"--pod-label", "app:k=v"}, // no container prefix for the pod
		{"--container-annotation", "db:k=v"},
		{"--container-annotation", "app:=v"},
		{"--container-label", "bad key=v"},
		{"--no-samples=maybe"},
	} {
		r := runCmd(t, args...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "nritest -h") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and a hint on stderr", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "-h")
	if r.code != exitOK || !strings.Contains(r.stdout, "Usage: nritest") || !strings.Contains(r.stdout, "-plugin-path DIR") {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"-no-samples", "the samples still run unless --no-samples", "-no-owners", "-status-of PATH",
		"-linger DURATION", "-registration-timeout DURATION", "-request-timeout DURATION", "-sync-timeout DURATION",
		"DURATION to register", "DURATION for each event call", "DURATION for each Synchronize message", "-pod-annotation KEY=VALUE", "-pod-label KEY=VALUE",
		"-container-annotation [CONTAINER:]KEY=VALUE", "-container-label [CONTAINER:]KEY=VALUE",
		"-allow KEY=CLASS[,CLASS...]",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-h lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestMetadataFlags(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	cfg, err := parseFlags([]string{
		"--pod-annotation", "a=1", "--pod-annotation", "a=2", "--pod-annotation", "url=http://x/?q=1",
		"--pod-label", "app=mine", "--pod-label", "empty=",
		"--container-annotation", "both=yes", "--container-annotation", "app:only=app:v",
		"--container-label", "sidecar:role=helper",
	}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	m := cfg.meta
	for _, c := range []struct {
		got, want map[string]string
	}{
		{m.podAnnotations.apply(nil, ""), map[string]string{"a": "2", "url": "http://x/?q=1"}},
		{m.podLabels.apply(map[string]string{"app": "demo"}, ""), map[string]string{"app": "mine", "empty": ""}},
		{m.ctrAnnotations.apply(nil, "app"), map[string]string{"both": "yes", "only": "app:v"}},
		{m.ctrAnnotations.apply(nil, "sidecar"), map[string]string{"both": "yes"}},
		{m.ctrLabels.apply(nil, "app"), nil},
		{m.ctrLabels.apply(nil, "sidecar"), map[string]string{"role": "helper"}},
	} {
		if !maps.Equal(c.got, c.want) || (c.want == nil) != (c.got == nil) {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
}
