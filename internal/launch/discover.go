// SPDX-License-Identifier: Apache-2.0

// Discovering the pre-installed plugins in the plugin directory, with their config drop-ins.

package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/nrikit/nrikit/internal/regfile"
)

// Candidate is one plugin file found in the plugin directory.
type Candidate struct {
	Index string // two digits, from the file name
	Name  string // the rest of the file name after the first '-'
	Path  string // absolute path of the plugin file (argv[0] of the child)

	// Config is the whole content of the plugin's config drop-in, or empty
	// when there is none. ConfigPath is the file it came from, or empty.
	Config     string
	ConfigPath string

	// WASM marks a WebAssembly module, which the runtime loads in-process
	// instead of starting it.
	WASM bool
}

// ID returns "<idx>-<name>", the identity used in logs and errors.
func (c Candidate) ID() string { return c.Index + "-" + c.Name }

// Skipped is a directory entry that looks like a plugin (an executable file,
// a symlink, or a file named like a plugin) but cannot be started. Reason
// says why, for the runtime's log.
type Skipped struct {
	Path, Reason string
}

// wasmMagic (the magic number and version 1) starts every WebAssembly
// module: such a plugin is loaded in-process, as the reference runtime does.
var wasmMagic = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// MaxConfigSize bounds a plugin's config drop-in. The config travels whole
// in one ConfigureRequest, and ttrpc refuses a message over 4 MiB; 1 MiB
// leaves ample room for the request's other fields and is about the largest
// single request that every peer takes (see "Requests over 4 MiB" in
// docs/operations.md), while configs are text of a few kilobytes.
const MaxConfigSize = 1 << 20

// Discover lists the plugin directory in file-name order and returns the
// plugins it can start.
//
// Directories, and files without any execute bit whose names are not
// <idx>-<name>, are not plugins and are ignored silently (a plugin directory
// may hold READMEs). Symlinks are followed. An entry that is meant to be a
// plugin but cannot be used — an executable file with a bad <idx>-<name>
// name, a regular file named <idx>-<name> without any execute bit (almost
// always a forgotten chmod +x), a dangling symlink, a config that is not a
// readable regular UTF-8 file of at most MaxConfigSize bytes — is reported
// in skipped, and the other plugins are still returned: one stray file must
// not disable every plugin on the node.
//
// A WASM module is loaded, never executed, so a symlink to one needs an
// execute bit on the link itself, not on the module, as in the reference
// (which checks the entry's own mode): a symlink to a .wasm file of mode 0644
// is a plugin. A regular file needs its own execute bit, WASM or not.
//
// A missing plugin directory means no plugins, not an error. confDir may be
// empty or missing, in which case every plugin gets an empty config.
func Discover(pluginDir, confDir string) (found []Candidate, skipped []Skipped, err error) {
	// An absolute path makes argv[0] independent of the runtime's working
	// directory, as the reference passes the full path.
	dir, err := filepath.Abs(pluginDir)
	if err != nil {
		return nil, nil, fmt.Errorf("nrikit: plugin directory %q: %w", pluginDir, err)
	}
	entries, err := os.ReadDir(dir) // sorted by file name
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("nrikit: list plugin directory: %w", err)
	}

	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		c, reason := candidate(path, e, confDir)
		switch {
		case reason != "":
			skipped = append(skipped, Skipped{Path: path, Reason: reason})
		case c != nil:
			found = append(found, *c)
		}
	}
	return found, skipped, nil
}

// candidate inspects one directory entry. It returns (nil, "") for entries
// that are not plugins at all, and a non-empty reason for plugins that
// cannot be used.
func candidate(path string, e fs.DirEntry, confDir string) (*Candidate, string) {
	info, err := os.Stat(path) // follows symlinks
	if err != nil {
		if isSymlink(e) && errors.Is(err, fs.ErrNotExist) {
			target, _ := os.Readlink(path)
			return nil, fmt.Sprintf("dangling symlink to %q", target)
		}
		return nil, err.Error()
	}
	if info.IsDir() {
		return nil, ""
	}
	idx, name, nameErr := SplitName(e.Name())
	wasm := false
	if perm := info.Mode().Perm(); perm&0o111 == 0 {
		// A file named like a plugin was meant to be one: say why it does
		// not run rather than leave the operator wondering. Anything else
		// without an execute bit is documentation or the like.
		if nameErr != nil || !info.Mode().IsRegular() {
			return nil, ""
		}
		// A symlink to a WASM module is the exception: the module is read,
		// not executed, and the reference looks at the link's own mode.
		if wasm = linkExecutable(e) && isWASM(path); !wasm {
			return nil, fmt.Sprintf("not executable (mode %04o)", perm)
		}
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Sprintf("not a regular file (%s)", regfile.Kind(info.Mode()))
	}
	if nameErr != nil {
		return nil, nameErr.Error()
	}
	c := &Candidate{Index: idx, Name: name, Path: path, WASM: wasm || isWASM(path)}
	c.Config, c.ConfigPath, err = readConfig(confDir, idx, name)
	if err != nil {
		// Starting a plugin without the config the operator gave it could
		// make it act on defaults they meant to override.
		return nil, err.Error()
	}
	return c, ""
}

func isSymlink(e fs.DirEntry) bool { return e.Type()&fs.ModeSymlink != 0 }

// linkExecutable reports whether e is a symlink with an execute bit of its
// own, which is what the reference checks (its DirEntry.Info is an lstat).
// On Linux every symlink has mode 0777.
func linkExecutable(e fs.DirEntry) bool {
	if !isSymlink(e) {
		return false
	}
	info, err := e.Info()
	return err == nil && info.Mode().Perm()&0o111 != 0
}

// readConfig returns the first existing of <confDir>/<idx>-<name>.conf and
// <confDir>/<name>.conf, so an operator can configure one instance or every
// instance of a plugin. The file must be a regular file (a named pipe would
// block Start for ever, /dev/zero would exhaust memory) of at most
// MaxConfigSize bytes, and valid UTF-8: ConfigureRequest.config is a
// protobuf string, which a plugin's decoder refuses otherwise.
func readConfig(confDir, idx, name string) (config, path string, err error) {
	if confDir == "" {
		return "", "", nil
	}
	for _, base := range []string{idx + "-" + name + ".conf", name + ".conf"} {
		path := filepath.Join(confDir, base)
		data, err := regfile.Read(path, MaxConfigSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("config file %q: %w", path, err)
		}
		if i := invalidUTF8(data); i >= 0 {
			return "", "", fmt.Errorf("config file %q is not valid UTF-8 (byte %d), which NRI requires of a config", path, i)
		}
		return string(data), path, nil
	}
	return "", "", nil
}

// invalidUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1, so the operator knows where to look.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// isWASM reports whether the file starts with the WebAssembly magic and
// version. Errors mean "not WASM": exec, or the checks that follow, will
// report the real problem. Only a regular file is opened, without blocking.
func isWASM(path string) bool {
	f, err := regfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(wasmMagic))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, wasmMagic)
}
