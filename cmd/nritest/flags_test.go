// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestFlagErrors: every usage error starts with "nritest:", says what is
// wrong, and exits 2.
func TestFlagErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sync-timeout", "1"}, "use a Go duration like 2s"},
		{[]string{"--request-timeout", "soon"}, "use a Go duration like 2s"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--plugin-path", missing}, "--plugin-path: "},
		{[]string{"--plugin-config-path", missing}, "--plugin-config-path: "},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--wait", "two", "--socket", "/tmp/x.sock"}, `"two" is not a whole number: use a count like 1 or 2`},
		{[]string{"--socket", "/tmp/" + strings.Repeat("s", maxSocketPath(runtime.GOOS)-4)}, "over the " + strconv.Itoa(maxSocketPath(runtime.GOOS)) + " a unix socket path may have"},
	} {
		r := runCmd(t, c.args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "nritest: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and nritest: ... %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestRejectedExternalPlugin: a plugin rejected at registration gets a
// warning that says why, and a progress line as it happens; since it was
// the one plugin awaited, nritest stops waiting at once rather than at
// --wait-timeout. (The runtime side may also log an error-level "error
// receiving message ... mux closed" from ttrpc's server loop when it closes
// the refused connection; that is the adaptation's closing order, not
// nritest's, and is not checked here.)
func TestRejectedExternalPlugin(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	sock := filepath.Join(dir, "nri.sock")
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	waiting := stderr.watch("nritest: waiting")
	finished := make(chan result, 1)
	go func() {
		finished <- runWith(stderr, "-v", "--no-samples", "--socket", sock, "--wait", "1", "--wait-timeout", "10m")
	}()
	<-waiting
	pctx, stopPlugin := context.WithCancel(context.Background())
	cmd, err := testplugin.StartExternal(pctx, testplugin.Config{Index: "5", Name: "badidx", SocketPath: sock}, filepath.Join(dir, "bad.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stopPlugin(); cmd.Wait() }()
	var r result
	select {
	case r = <-finished:
	case <-time.After(testLimit):
		t.Fatal("nritest kept waiting for a plugin it had refused")
	}
	if r.code != exitFailed || !strings.Contains(lineWith(r.stderr, "plugin dropped during register"), `invalid plugin index \"5\"`) {
		t.Errorf("exit %d; no warning with the reason:\n%s", r.code, r.stderr)
	}
	if line := lineWith(r.stderr, "refused during register"); !strings.HasPrefix(line, "nritest: ") || !strings.Contains(line, `invalid plugin index "5"`) {
		t.Errorf("no progress line for the refusal:\n%s", r.stderr)
	}
	want := "nritest: stopped waiting: 1 of 1 awaited external plugin(s) connected to " + sock + ", and 1 of them were refused ("
	if last := lineWith(r.stderr, "nritest: stopped waiting"); !strings.HasPrefix(last, want) || !strings.HasSuffix(r.stderr, last+"\n") {
		t.Errorf("stderr does not end with why the run stopped (%q...):\n%s", want, r.stderr)
	}
	// The refused connection's close is no error of the runtime's own.
	if line := lineWith(r.stderr, "error receiving message"); line != "" {
		t.Errorf("an error line besides the warning: %s", line)
	}
}

// TestSocketPathLimit: the longest path the OS can bind is accepted, one
// byte more is refused up front, before any plugin starts.
func TestSocketPathLimit(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	fill := maxSocketPath(runtime.GOOS) - len(dir) - 1
	longest := filepath.Join(dir, strings.Repeat("s", fill))
	r := runCmd(t, "--plugin-path", "", "--socket", longest)
	if r.code != exitOK {
		t.Errorf("a %d-byte socket path: exit %d\n%s", len(longest), r.code, r.stderr)
	}
	r = runCmd(t, "--plugin-path", "", "--socket", longest+"s")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--socket: ") || r.stdout != "" {
		t.Errorf("a %d-byte socket path: exit %d, stdout %q, stderr %q; want a usage error", len(longest)+1, r.code, r.stdout, r.stderr)
	}
}
