// SPDX-License-Identifier: Apache-2.0

//go:build unix

package accept

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestListenReplacesOnlyAStaleSocket(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	path := filepath.Join(dir, "nri.sock")
	l, err := Listen(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path, nil); !errors.Is(err, ErrBadSocketPath) {
		t.Errorf("listening again beside a live listener: %v, want ErrBadSocketPath", err)
	}
	// A listener closed without removing its socket leaves it stale.
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()
	l, err = Listen(path, nil)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}
	defer l.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", p, got, want)
		}
	}
}

func TestListenLeavesWhatIsNotAStaleSocket(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{file, full} {
		if _, err := Listen(path, nil); !errors.Is(err, ErrBadSocketPath) {
			t.Errorf("Listen(%s): %v, want ErrBadSocketPath", path, err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s was removed: %v", path, err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(empty, nil)
	if err != nil {
		t.Fatalf("an empty directory at the path was not replaced: %v", err)
	}
	_ = l.Close()
}

func TestLookupGroup(t *testing.T) {
	g, err := LookupGroup("4321")
	if err != nil || g.GID() != 4321 {
		t.Errorf("numeric group: %v, %v", g, err)
	}
	for _, bad := range []string{"", "-1", "no-such-group-anywhere"} {
		if _, err := LookupGroup(bad); err == nil {
			t.Errorf("LookupGroup(%q) accepted", bad)
		}
	}
}
