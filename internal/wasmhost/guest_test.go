//go:build !nrikit_no_wasm

package wasmhost

import (
	"context"
	"os"
	"path/filepath"
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
