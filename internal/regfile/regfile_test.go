// SPDX-License-Identifier: Apache-2.0

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	for _, p := range []string{path, link} {
		data, err := Read(p, 5)
		if err != nil || string(data) != "hello" {
			t.Errorf("Read(%q, 5) = %q, %v; want hello", p, data, err)
		}
	}

	_, err := Read(path, 4)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "file too large: 5 bytes, more than the limit of 4 bytes" {
		t.Errorf("Read over the limit: %v", err)
	}

	_, err = Read(dir, 1<<20)
	if !errors.Is(err, ErrNotRegular) || err.Error() != "not a regular file (directory)" {
		t.Errorf("Read(directory): %v", err)
	}

	_, err = Read(filepath.Join(dir, "missing"), 1)
	if !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("Read(missing) = %v, want ErrNotExist without the path", err)
	}
}

// A big file is refused from its size, before a byte of it is read: the file
// is sparse, so it costs no disk, and reading it would cost 1 GiB.
func TestReadRefusesBigFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(path, 1<<20)
	if err == nil {
		t.Fatal("Read(1 GiB) succeeded")
	}
	if got, want := err.Error(), "file too large: 1024 MiB, more than the limit of 1 MiB"; got != want {
		t.Errorf("Read(1 GiB) = %q, want %q", got, want)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:         "0 bytes",
		1023:      "1023 bytes",
		1536:      "1536 bytes (1.5 KiB)",
		1 << 20:   "1 MiB",
		1<<20 + 1: "1048577 bytes (1.0 MiB)",
		256 << 20: "256 MiB",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
