// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// staleSocket leaves a socket file at path that nobody listens on, as a
// runtime that crashed does.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
}

// liveListener listens at path for the rest of the test.
func liveListener(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

func TestSocketPathLeftovers(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		// refused is what the error must say is there; "" when Start must
		// clear the path and listen.
		refused string
		// intact checks that a refused entry was left as it was.
		intact func(t *testing.T, path string)
	}{
		{name: "nothing there"},
		{name: "stale socket", setup: staleSocket},
		{name: "empty directory", setup: func(t *testing.T, path string) { mkdir(t, path) }},
		{
			name:    "regular file",
			setup:   func(t *testing.T, path string) { writeFile(t, path, "precious") },
			refused: "a regular file (8 bytes)",
			intact: func(t *testing.T, path string) {
				if data, err := os.ReadFile(path); err != nil || string(data) != "precious" {
					t.Errorf("file changed: %q, %v", data, err)
				}
			},
		},
		{
			name: "directory with content",
			setup: func(t *testing.T, path string) {
				mkdir(t, path)
				writeFile(t, filepath.Join(path, "keep"), "x")
			},
			refused: "a directory that is not empty",
			intact: func(t *testing.T, path string) {
				if _, err := os.Stat(filepath.Join(path, "keep")); err != nil {
					t.Errorf("directory content lost: %v", err)
				}
			},
		},
		{
			name:    "socket something listens on",
			setup:   liveListener,
			refused: "a live socket: something is listening on it",
			intact: func(t *testing.T, path string) {
				c, err := net.Dial("unix", path)
				if err != nil {
					t.Errorf("the other listener lost its socket: %v", err)
					return
				}
				c.Close()
			},
		},
		{
			name: "symbolic link",
			setup: func(t *testing.T, path string) {
				if err := os.Symlink("elsewhere", path); err != nil {
					t.Fatal(err)
				}
			},
			refused: "a symbolic link",
			intact: func(t *testing.T, path string) {
				if target, err := os.Readlink(path); err != nil || target != "elsewhere" {
					t.Errorf("link changed: %q, %v", target, err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			mkdir(t, filepath.Dir(e.socket))
			if tc.setup != nil {
				tc.setup(t, e.socket)
			}
			err := e.a.Start(context.Background())
			if tc.refused != "" {
				if !errors.Is(err, adaptation.ErrBadSocketPath) || !strings.Contains(err.Error(), e.socket+" is "+tc.refused) {
					t.Fatalf("Start = %v, want ErrBadSocketPath saying %s is %s", err, e.socket, tc.refused)
				}
				tc.intact(t, e.socket)
				return
			}
			if err != nil {
				t.Fatalf("Start = %v, want the path cleared and listened on", err)
			}
			e.external("10", "joins", testplugin.Config{})
			e.waitPlugins("10-joins")
		})
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
}
