// SPDX-License-Identifier: Apache-2.0

//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe that no one writes is refused at once: os.ReadFile would wait
// for a writer for ever.
func TestReadNamedPipeDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		done := make(chan error, 1)
		go func() {
			_, err := Read(p, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || err.Error() != "not a regular file (named pipe)" {
				t.Errorf("Read(%s) = %v, want a named pipe refused", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) blocked", p)
		}
	}
}

// The race Open guards against: the path is a regular file when Stat looks
// and a named pipe when it is opened. Opened without O_NONBLOCK, the pipe
// would block. The race cannot be staged from a test, so this checks Open's
// two guards on their own: opening with openFlags returns at once, and the
// opened file's mode is refused.
func TestOpenSwappedForNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := os.OpenFile(fifo, os.O_RDONLY|openFlags, 0)
	if err != nil {
		t.Fatalf("open without blocking: %v", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkRegular(info.Mode()); !errors.Is(err, ErrNotRegular) {
		t.Errorf("checkRegular(opened pipe) = %v", err)
	}
}

// /dev/zero never ends: refused from its type, never read.
func TestReadDevice(t *testing.T) {
	link := filepath.Join(t.TempDir(), "zero")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skipf("no /dev/zero: %v", err)
	}
	_, err := Read(link, 1<<20)
	if !errors.Is(err, ErrNotRegular) || err.Error() != "not a regular file (character device)" {
		t.Errorf("Read(/dev/zero) = %v", err)
	}
}
