package adaptation

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// listenSocket listens for external plugins at path: the parent directory
// is created 0700, a stale socket is replaced, any other file is refused,
// and the socket is made accessible to its owner only.
func listenSocket(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("nrikit: creating socket directory: %w", err)
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("nrikit: listening on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("nrikit: restricting socket %s: %w", path, err)
	}
	return l, nil
}

func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("nrikit: checking socket path: %w", err)
	case fi.Mode().Type() != fs.ModeSocket:
		return fmt.Errorf("%w: %s is a %s", ErrBadSocketPath, path, fileKind(fi))
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("nrikit: removing stale socket: %w", err)
	}
	return nil
}

func fileKind(fi fs.FileInfo) string {
	switch {
	case fi.IsDir():
		return "directory"
	case fi.Mode().IsRegular():
		return "regular file"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return fi.Mode().Type().String()
}
