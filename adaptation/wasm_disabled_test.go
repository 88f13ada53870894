// SPDX-License-Identifier: Apache-2.0

//go:build nrikit_no_wasm || nri_no_wasm

package adaptation_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sirupsen/logrus"
)

// TestWASMLeftOut: a build without WASM support skips a WASM module with a
// warning that says why, and starts the other plugins.
func TestWASMLeftOut(t *testing.T) {
	e := newEnv(t)
	module := []byte("\x00asm\x01\x00\x00\x00")
	if err := os.WriteFile(filepath.Join(e.pluginDir, "30-guest"), module, 0o755); err != nil {
		t.Fatal(err)
	}
	e.start()
	entries := e.waitLogged(logrus.Fields{"path": filepath.Join(e.pluginDir, "30-guest")})
	if reason, _ := entries[0].Data["reason"].(string); reason == "" || entries[0].Message != "nrikit: pre-installed plugin skipped" {
		t.Errorf("log %q %v, want a skip with its reason", entries[0].Message, entries[0].Data)
	}
	if n := len(e.a.Plugins()); n != 0 {
		t.Errorf("%d plugins active", n)
	}
}
