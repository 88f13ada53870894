// SPDX-License-Identifier: Apache-2.0

// The group granted access to a socket: its lookup, and the socket's and its directory's modes.

package accept

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"runtime"
	"strconv"
)

// Group is the group the operator grants access to a socket: its members
// may connect to it (0660), and reach it through its directory (0750).
type Group struct {
	name string // as configured: a group name or a numeric gid
	gid  int
}

// LookupGroup finds the group named group (a name, or a numeric gid). An
// unknown group, an empty name and Windows, where the socket has no group,
// are refused.
func LookupGroup(group string) (*Group, error) {
	if group == "" {
		return nil, errors.New("nrikit: empty socket group")
	}
	if runtime.GOOS == "windows" {
		return nil, fmt.Errorf("nrikit: socket group %q: not supported on windows", group)
	}
	if gid, err := strconv.Atoi(group); err == nil {
		if gid < 0 {
			return nil, fmt.Errorf("nrikit: socket group %q: negative gid", group)
		}
		return &Group{name: group, gid: gid}, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return nil, fmt.Errorf("nrikit: socket group %q: %w", group, err)
	}
	gid, err := strconv.Atoi(g.Gid)
	if err != nil {
		return nil, fmt.Errorf("nrikit: socket group %q has gid %q, not a number: %w", group, g.Gid, err)
	}
	return &Group{name: group, gid: gid}, nil
}

// socketModes are the socket's and its directory's permissions.
func (g *Group) socketModes() (socket, dir os.FileMode) {
	if g == nil {
		return 0o600, 0o700
	}
	return 0o660, 0o750
}

// prepareSocketDir creates the socket's directory, and opens it to the
// group when the directory is the runtime's own: new, or 0700 and owned by
// this process's user.
func prepareSocketDir(dir string, g *Group) error {
	_, dirMode := g.socketModes()
	fi, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, dirMode); err != nil {
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
