// SPDX-License-Identifier: Apache-2.0

// The group granted access to a socket: its lookup, and the socket's and its directory's modes.

package accept

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Group is the group the operator grants access to a socket: its members
// may connect to it (0660), and reach it through its directory (0750).
type Group struct {
	name string // as configured: a group name or a numeric gid
	gid  int
}

// MaxGID is the largest group id the kernel stores: gid_t is 32 bits, and
// (gid_t)-1 tells chown to leave the group as it is.
const MaxGID = 1<<32 - 2

// LookupGroup finds the group named group (a name, or a numeric gid). An
// unknown group, a gid beyond MaxGID, an empty name and Windows, where the
// socket has no group, are refused.
func LookupGroup(group string) (*Group, error) {
	if group == "" {
		return nil, errors.New("nrikit: empty socket group")
	}
	if runtime.GOOS == "windows" {
		return nil, fmt.Errorf("nrikit: socket group %q: not supported on windows", group)
	}
	if numeric(group) {
		gid, err := parseGID(group)
		if err != nil {
			return nil, fmt.Errorf("nrikit: socket group %q: %w", group, err)
		}
		return &Group{name: group, gid: gid}, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return nil, fmt.Errorf("nrikit: socket group %q: %w", group, err)
	}
	gid, err := parseGID(g.Gid)
	if err != nil {
		return nil, fmt.Errorf("nrikit: socket group %q has gid %q: %w", group, g.Gid, err)
	}
	return &Group{name: group, gid: gid}, nil
}

// numeric tells whether s is a number, signed or not, however large.
func numeric(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// parseGID reads a gid the kernel can store: 0 to MaxGID.
func parseGID(s string) (int, error) {
	if strings.HasPrefix(s, "-") {
		return 0, errors.New("negative gid")
	}
	gid, err := strconv.ParseUint(s, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("not a gid: %w", err)
	}
	if err != nil || gid > MaxGID {
		return 0, fmt.Errorf("gid beyond the largest the kernel stores, %d", uint64(MaxGID))
	}
	return int(gid), nil
}

// socketModes are the socket's and its directory's permissions.
func (g *Group) socketModes() (socket, dir os.FileMode) {
	if g == nil {
		return 0o600, 0o700
	}
	return 0o660, 0o750
}

// prepareSocketDir creates the socket's directory and those missing above
// it. With a group, every directory it creates is the group's (0750), and
// so is the socket's own directory when it is the runtime's: 0700 and
// owned by this process's user; and every directory above must let the
// group's members search it, or the socket is refused, naming the one
// that does not: they could not reach it.
func prepareSocketDir(dir string, g *Group) error {
	_, dirMode := g.socketModes()
	fi, statErr := os.Stat(dir)
	if g != nil {
		if err := searchableUpTo(dir, g); err != nil {
			return err
		}
	}
	if err := mkdirs(dir, dirMode, g); err != nil {
		return fmt.Errorf("nrikit: creating socket directory: %w", err)
	}
	if g == nil || statErr == nil && !ownStrictDir(fi) {
		return nil
	}
	if err := grantGroup(dir, g, dirMode); err != nil {
		return fmt.Errorf("nrikit: opening socket directory %s to group %s: %w", dir, g.name, err)
	}
	return nil
}

// mkdirs creates dir and the directories missing above it with mode, each
// given to g when there is one.
func mkdirs(dir string, mode os.FileMode, g *Group) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirs(parent, mode, g); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, mode); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if g == nil {
		return nil
	}
	if err := grantGroup(dir, g, mode); err != nil {
		return fmt.Errorf("giving %s to group %s: %w", dir, g.name, err)
	}
	return nil
}

// searchableUpTo checks that g's members can search every directory that
// exists above dir, and dir itself unless it is the runtime's own (which
// is opened to g).
func searchableUpTo(dir string, g *Group) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil && !(d == dir && ownStrictDir(fi)) {
			if why := unsearchable(fi, g.gid); why != "" {
				return fmt.Errorf("nrikit: socket group %s cannot reach the socket: its members cannot search directory %s (%s); "+
					"let them (o+x, or the group's with g+x) or choose another socket_path", g.name, d, why)
			}
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

// grantGroup gives path to group g with mode (group first, so the mode
// never applies to the previous group).
func grantGroup(path string, g *Group, mode os.FileMode) error {
	if err := os.Chown(path, -1, g.gid); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// restrictSocket sets the socket's group and mode.
func restrictSocket(path string, g *Group) error {
	mode, _ := g.socketModes()
	if g == nil {
		return os.Chmod(path, mode)
	}
	return grantGroup(path, g, mode)
}

// GID is the group's numeric id.
func (g *Group) GID() int { return g.gid }
