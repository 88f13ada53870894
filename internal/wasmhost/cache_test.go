// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"os"
	"path/filepath"
	"testing"
)

// A cache directory that cannot be used still gives a cache, in memory,
// and the error for the caller to log.
func TestSharedCacheWithUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewSharedCache(file)
	if err == nil {
		t.Error("NewSharedCache over a regular file reports no error")
	}
	if c == nil || c.Compiled() == nil {
		t.Fatal("NewSharedCache over a regular file gives no cache")
	}
	c.Release()
}
