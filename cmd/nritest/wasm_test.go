// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestPluginPathWASM: --plugin-path runs a WASM plugin (built on the
// reference's WASM guest API) beside a process, and reports its kind. Not
// parallel: compiling the guest on a first run would starve the tests that
// time plugins out after a second.
func TestPluginPathWASM(t *testing.T) {
	dir := t.TempDir()
	pluginDir := installTestPlugins(t, dir, testplugin.Config{Index: "20", Name: "proc", LogPath: filepath.Join(dir, "events.log")})
	code, err := os.ReadFile(interoptest.Binary(t, "wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pluginDir, "10-guest"), code, 0o755); err != nil {
		t.Fatal(err)
	}

	// The first run on a machine compiles the guest, which can take minutes
	// under the race detector; later runs take its code from the cache.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r := runCtx(ctx, &lockedWriter{w: &bytes.Buffer{}}, "--json", "--plugin-path", pluginDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	if ids := pluginIDs(rep.Active); !slices.Equal(ids, []string{"10-guest", "20-proc"}) {
		t.Fatalf("plugins = %v", ids)
	}
	if k := rep.Active[0].Kind; k != adaptation.KindWASM {
		t.Errorf("10-guest kind = %q, want %q", k, adaptation.KindWASM)
	}
	for i, e := range jsonRows(rep) {
		if !slices.Equal(e.plugins, []string{"10-guest", "20-proc"}) {
			t.Errorf("event %d %s: plugins %v", i+1, e.event, e.plugins)
		}
	}

	text := runCmd(t, "--plugin-path", pluginDir)
	if text.code != exitOK || !strings.Contains(text.stdout, "10-guest") || !strings.Contains(text.stdout, " wasm ") && !strings.Contains(text.stdout, "\twasm\t") {
		t.Errorf("text report does not show 10-guest as wasm:\n%s", text.stdout)
	}
}
