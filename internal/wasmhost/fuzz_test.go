// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/wasmtest"
)

// FuzzLoad loads module bytes as a plugin file and makes one call: whatever
// the bytes, nothing panics (a recovered panic fails too: it is a bug that
// ends a plugin), and load and call return by their deadlines.
func FuzzLoad(f *testing.F) {
	f.Add(wasmtest.NoMemory())
	f.Add(wasmtest.Module{Memory: true, MinPages: 1, Version: 1, Malloc: 16}.Bytes())
	f.Add(wasmtest.Module{Memory: true, MinPages: 1, Version: 1, Malloc: 65530}.Bytes())
	f.Add(wasmtest.Module{Memory: true, HasMax: true, Version: 1, Malloc: 16}.Bytes())
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	const (
		deadline = time.Second
		margin   = 5 * time.Second // compiling on a loaded machine
	)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, code []byte) {
		path := filepath.Join(dir, "10-fuzz")
		if err := os.WriteFile(path, code, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		start := time.Now()
		g, err := Load(ctx, Config{ID: "10-fuzz", Path: path, MemoryLimit: 16 * PageSize, InitTimeout: deadline})
		if errors.As(err, new(*panics.Error)) {
			t.Fatalf("load panicked: %v\n%s", err, stackOf(err))
		}
		if took := time.Since(start); took > deadline+margin {
			t.Fatalf("load took %v", took)
		}
		if err != nil {
			return
		}
		defer g.Close()
		ctx, cancel = context.WithTimeout(context.Background(), deadline)
		defer cancel()
		start = time.Now()
		_, err = g.Call(ctx, "plugin_configure", []byte("\x0a\x03cfg"))
		if errors.As(err, new(*panics.Error)) {
			t.Fatalf("call panicked: %v\n%s", err, stackOf(err))
		}
		if took := time.Since(start); took > deadline+margin {
			t.Fatalf("call took %v", took)
		}
	})
}

func stackOf(err error) string {
	var p *panics.Error
	if errors.As(err, &p) {
		return p.Stack
	}
	return ""
}
