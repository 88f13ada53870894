// SPDX-License-Identifier: Apache-2.0

// Read and Open: refusing anything but a regular file, and reading up to a limit.

package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

var (
	// ErrNotRegular is wrapped by the error for a path that is a directory,
	// a named pipe, a device, a socket or anything else but a regular file
	// (symlinks are followed).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is wrapped by the error for a file over the limit.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the content of the regular file at path, following symlinks,
// if it holds at most limit bytes.
//
// Errors do not repeat the path, so that callers can say what the file is
// for ("config file %q: %w"); the os package's errors are unwrapped from
// their *fs.PathError for that, and errors.Is(err, fs.ErrNotExist) still
// holds for a missing file.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, bare(err)
	}
	if info.Size() > limit {
		return nil, tooLarge(info.Size(), limit)
	}
	// The size may grow after Stat, and some regular files (in /proc) claim
	// 0 bytes: the limit holds whatever Stat said.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, bare(err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than the limit of %s", ErrTooLarge, Size(limit))
	}
	return data, nil
}

// Open opens the regular file at path for reading, following symlinks, and
// refuses anything else without blocking. Its errors are as Read's.
func Open(path string) (*os.File, error) {
	// Stat first: opening a device or a pipe is not harmless in itself (a
	// tape rewinds, a pipe's writer is woken).
	info, err := os.Stat(path)
	if err != nil {
		return nil, bare(err)
	}
	if err := checkRegular(info.Mode()); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, bare(err)
	}
	info, err = f.Stat()
	if err == nil {
		err = checkRegular(info.Mode())
	}
	if err != nil {
		f.Close()
		return nil, bare(err)
	}
	return f, nil
}

func checkRegular(mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrNotRegular, Kind(mode))
}

func tooLarge(size, limit int64) error {
	return fmt.Errorf("%w: %s, more than the limit of %s", ErrTooLarge, Size(size), Size(limit))
}

// Kind names the type of file a mode describes, in the words an operator
// would use ("named pipe", not "p---------").
func Kind(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t == 0:
		return "regular file"
	case t&fs.ModeDir != 0:
		return "directory"
	case t&fs.ModeSymlink != 0:
		return "symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "block device"
	default:
		return "file of type " + t.String()
	}
}

// Size writes a byte count exactly, with its size in MiB or KiB when that
// reads better: "1 MiB", "1048577 bytes (1.0 MiB)".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// bare drops the path and keeps the operation of an *fs.PathError: the
// caller names the file.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
