package main

import (
	"bytes"
	"context"
	"path/filepath"
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
	} {
		r := runCmd(t, c.args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "nritest: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and nritest: ... %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestRejectedExternalPlugin: a plugin rejected at registration gets a
// warning that says why. (The runtime side may also log an error-level
// "error receiving message ... mux closed" from ttrpc's server loop when it
// closes the refused connection; that is the adaptation's closing order, not
// nritest's, and is not checked here.)
func TestRejectedExternalPlugin(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	sock := filepath.Join(dir, "nri.sock")
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	waiting := stderr.watch("nritest: waiting")
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	finished := make(chan result, 1)
	go func() {
		finished <- runCtx(ctx, stderr, "-v", "--no-samples", "--socket", sock, "--wait", "1", "--wait-timeout", "1m")
	}()
	<-waiting
	rejected := stderr.watch("plugin dropped during register")
	pctx, stopPlugin := context.WithCancel(context.Background())
	cmd, err := testplugin.StartExternal(pctx, testplugin.Config{Index: "5", Name: "badidx", SocketPath: sock}, filepath.Join(dir, "bad.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stopPlugin(); cmd.Wait() }()
	select {
	case <-rejected:
	case <-time.After(testLimit):
		t.Fatal("no warning about the rejected plugin")
	}
	interrupt()
	r := <-finished
	if r.code != exitFailed || !strings.Contains(lineWith(r.stderr, "plugin dropped during register"), `invalid plugin index \"5\"`) {
		t.Errorf("exit %d; no warning with the reason:\n%s", r.code, r.stderr)
	}
	if !strings.HasSuffix(r.stderr, "nritest: interrupted while waiting for external plugins (0 of 1 connected): context canceled\n") {
		t.Errorf("stderr does not end with why the run stopped:\n%s", r.stderr)
	}
	// The refused connection's close is no error of the runtime's own.
	if line := lineWith(r.stderr, "error receiving message"); line != "" {
		t.Errorf("an error line besides the warning: %s", line)
	}
}
