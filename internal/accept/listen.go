// SPDX-License-Identifier: Apache-2.0

// Listening on a unix socket, and removing only a stale socket left at its path.

package accept

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// probeTimeout bounds the connection attempt that tells a live socket at the
// socket path from a stale one.
const probeTimeout = time.Second

// ErrBadSocketPath: Listen found at the socket path something it would be
// harmful to remove (a regular file, a directory that is not empty, a
// socket another process listens on), and left it alone. A stale socket or
// an empty directory there is removed instead.
var ErrBadSocketPath = errors.New("nrikit: socket path is in use")

// Listen listens on a unix socket at path: the parent directory is created
// 0700, what a crashed runtime or a test leaves there is removed, and the
// socket is made accessible to its owner only, or also to group when one is
// given.
func Listen(path string, group *Group) (net.Listener, error) {
	if err := prepareSocketDir(filepath.Dir(path), group); err != nil {
		return nil, err
	}
	if err := clearSocketPath(path); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("nrikit: listening on %s: %w", path, err)
	}
	if err := restrictSocket(path, group); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("nrikit: restricting socket %s: %w", path, err)
	}
	return l, nil
}

// clearSocketPath removes a stale socket or an empty directory at path, and
// refuses, with ErrBadSocketPath, anything it would be harmful to remove.
func clearSocketPath(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("nrikit: checking socket path: %w", err)
	}
	if harm := harmOfRemoving(path, fi); harm != "" {
		return fmt.Errorf("%w: %s is %s (left in place)", ErrBadSocketPath, path, harm)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("nrikit: removing leftover %s at socket path %s: %w", fileKind(fi), path, err)
	}
	return nil
}

// harmOfRemoving says what removing the entry at path would destroy, or ""
// when it is a leftover: a socket nobody listens on, or an empty directory.
func harmOfRemoving(path string, fi fs.FileInfo) string {
	switch {
	case fi.Mode().Type() == fs.ModeSocket:
		return liveSocket(path)
	case fi.IsDir():
		entries, err := os.ReadDir(path)
		switch {
		case err != nil:
			return fmt.Sprintf("a directory that cannot be read (%v)", err)
		case len(entries) > 0:
			return "a directory that is not empty"
		}
		return ""
	case fi.Mode().IsRegular():
		return fmt.Sprintf("a regular file (%d bytes)", fi.Size())
	}
	return "a " + fileKind(fi)
}

// liveSocket describes the socket at path when something may listen on it,
// and returns "" when it is stale: only a refused connection proves that.
func liveSocket(path string) string {
	c, err := net.DialTimeout("unix", path, probeTimeout)
	switch {
	case err == nil:
		_ = c.Close()
		return "a live socket: something is listening on it"
	case errors.Is(err, syscall.ECONNREFUSED):
		return ""
	}
	return fmt.Sprintf("a socket that may be in use (connecting to it: %v)", err)
}

func fileKind(fi fs.FileInfo) string {
	switch {
	case fi.IsDir():
		return "directory"
	case fi.Mode().IsRegular():
		return "regular file"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "symbolic link"
	case fi.Mode()&fs.ModeSocket != 0:
		return "socket"
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return "named pipe"
	case fi.Mode()&fs.ModeDevice != 0:
		return "device"
	}
	return fi.Mode().Type().String()
}
