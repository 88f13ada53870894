// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testgid"
)

// searchable lets anyone search the env's directory (a temporary one is
// 0700), which is on the way to its socket: a socket group's members must
// reach the socket, or Start refuses it.
func searchable(t *testing.T, e *env) {
	t.Helper()
	if err := os.Chmod(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// assertAccess checks path's permissions and group.
func assertAccess(t *testing.T, path string, perm os.FileMode, gid int) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	got := int(fi.Sys().(*syscall.Stat_t).Gid)
	if fi.Mode().Perm() != perm || got != gid {
		t.Errorf("%s: mode %v group %d, want %v group %d", path, fi.Mode().Perm(), got, perm, gid)
	}
}

func TestSocketIsTheRuntimesAloneByDefault(t *testing.T) {
	e := newEnv(t)
	e.start()
	assertAccess(t, e.socket, 0o600, os.Getegid())
	assertAccess(t, filepath.Dir(e.socket), 0o700, os.Getegid())
}

// TestSocketGroup: with a socket group, the socket is 0660 and its
// directory 0750, both the group's; the runtime's own 0700 directory left
// by an earlier start without a group is opened the same way.
func TestSocketGroup(t *testing.T) {
	gid := testgid.Unused(t)
	probe := newEnv(t)
	searchable(t, probe)
	probe.start()
	probe.stop() // leaves the 0700 directory behind
	e := newEnvAt(t, probe, adaptation.WithSocketGroup(strconv.Itoa(gid)))
	e.start()
	assertAccess(t, e.socket, 0o660, gid)
	assertAccess(t, filepath.Dir(e.socket), 0o750, gid)
}

// TestSocketGroupLeavesTheOperatorsDirectory: a socket directory the
// operator made (not the runtime's own 0700 one) keeps its mode and group;
// the socket is still the group's.
func TestSocketGroupLeavesTheOperatorsDirectory(t *testing.T) {
	gid := testgid.Unused(t)
	probe := newEnv(t)
	searchable(t, probe)
	dir := filepath.Dir(probe.socket)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	e := newEnvAt(t, probe, adaptation.WithSocketGroup(strconv.Itoa(gid)))
	e.start()
	assertAccess(t, e.socket, 0o660, gid)
	assertAccess(t, dir, 0o755, os.Getegid())
}

func TestSocketGroupByName(t *testing.T) {
	g, err := user.LookupGroupId(strconv.Itoa(os.Getegid()))
	if err != nil {
		t.Fatalf("this process's group has no name: %v", err)
	}
	e := newEnv(t, adaptation.WithSocketGroup(g.Name))
	searchable(t, e)
	e.start()
	assertAccess(t, e.socket, 0o660, os.Getegid())
}

func TestSocketGroupUnknown(t *testing.T) {
	_, err := adaptation.New("rt", "v1", nil, nil, adaptation.WithSocketGroup("nrikit-no-such-group"))
	var unknown user.UnknownGroupError
	if !errors.As(err, &unknown) {
		t.Fatalf("New with an unknown socket group: %v, want an error naming the unknown group", err)
	}
	if _, err := adaptation.New("rt", "v1", nil, nil, adaptation.WithSocketGroup("")); err == nil {
		t.Error("New with an empty socket group succeeded")
	}
}

// TestSocketGroupUnreachable: a socket its group's members could not reach,
// under a directory they cannot search, fails Start naming the directory,
// before any plugin is launched.
func TestSocketGroupUnreachable(t *testing.T) {
	gid := testgid.Unused(t)
	e := newEnv(t, adaptation.WithSocketGroup(strconv.Itoa(gid)))
	if err := os.Chmod(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	err := e.a.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "directory "+e.dir+" ") || !strings.Contains(err.Error(), "cannot search") {
		t.Fatalf("Start: %v, want it to fail naming %s, which the group cannot search", err, e.dir)
	}
}
