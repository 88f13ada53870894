// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLoadRefusesModulesThatAreNoPlugins(t *testing.T) {
	dir := t.TempDir()
	for name, code := range map[string]string{
		"empty":   "\x00asm\x01\x00\x00\x00", // a valid module without exports
		"garbage": "\x00asm\x01\x00\x00\x00\xff\xff",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(code), 0o600); err != nil {
			t.Fatal(err)
		}
		before := Live()
		g, err := Load(context.Background(), Config{ID: "10-" + name, Path: path})
		if err == nil {
			g.Close()
			t.Fatalf("%s: loaded", name)
		}
		if !strings.HasPrefix(err.Error(), "nrikit: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q, want one line prefixed nrikit:", name, err)
		}
		if name == "empty" && !strings.Contains(err.Error(), "not an NRI plugin: it does not export plugin_api_version") {
			t.Errorf("empty: %v", err)
		}
		if Live() != before {
			t.Errorf("%s: the failed load left an instance open", name)
		}
	}
}

// A file over MaxModuleSize that starts like a module is refused from its
// size, with the path and the limit in the error, before it is read: the
// file is sparse, so it costs no disk, and reading it would cost 256 MiB.
func TestLoadRefusesOversizedModule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "80-huge")
	if err := os.WriteFile(path, []byte("\x00asm\x01\x00\x00\x00"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, MaxModuleSize+1); err != nil {
		t.Fatal(err)
	}
	live := Live()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := Load(context.Background(), Config{ID: "80-huge", Path: path})
	runtime.ReadMemStats(&after)
	if err == nil {
		g.Close()
		t.Fatal("a module over the limit loaded")
	}
	want := fmt.Sprintf("nrikit: WASM plugin %q: file too large: 268435457 bytes (256.0 MiB), more than the limit of 256 MiB", path)
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	if read := after.TotalAlloc - before.TotalAlloc; read > MaxModuleSize/4 {
		t.Errorf("refusing the module allocated %d bytes: it was read", read)
	}
	if Live() != live {
		t.Errorf("the refused module left an instance open")
	}
}

func TestSplitResult(t *testing.T) {
	ptr, size, isErr := splitResult(0x0000_1000_8000_0005)
	if ptr != 0x1000 || size != 5 || !isErr {
		t.Errorf("error result split as %#x, %d, %v", ptr, size, isErr)
	}
	ptr, size, isErr = splitResult(0x0000_2000_0000_0007)
	if ptr != 0x2000 || size != 7 || isErr {
		t.Errorf("reply split as %#x, %d, %v", ptr, size, isErr)
	}
}

func TestMemoryLimitPages(t *testing.T) {
	for limit, want := range map[uint64]uint32{0: 65536, 1: 1, PageSize: 1, PageSize + 1: 2, 512 << 20: 8192, 8 << 30: 65536} {
		if got := (Config{MemoryLimit: limit}).memoryLimitPages(); got != want {
			t.Errorf("memoryLimitPages(%d) = %d, want %d", limit, got, want)
		}
	}
}

func TestLineWriter(t *testing.T) {
	var lines []string
	w := &lineWriter{emit: func(l string) { lines = append(lines, l) }}
	for _, chunk := range []string{"pan", "ic: boom\n\ngorou", "tine 1\n", strings.Repeat("x", maxLine+10), "\n", "tail"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if first := w.takeFirst(); first != "panic: boom" {
		t.Errorf("first line %q", first)
	}
	want := []string{"panic: boom", "goroutine 1", strings.Repeat("x", maxLine) + " [cut]", "tail"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q", lines)
	}
}
