// SPDX-License-Identifier: Apache-2.0

package accept

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nrikit/nrikit/internal/testgid"
)

// TestLookupGroupBoundsTheGID: a gid the kernel cannot store is refused,
// naming the bound: (gid_t)-1 means "no change" to chown, and a larger
// number would wrap, leaving the socket in another group than asked.
func TestLookupGroupBoundsTheGID(t *testing.T) {
	for _, gid := range []string{"4294967295", "4294967296", "18446744073709551616"} {
		_, err := LookupGroup(gid)
		if err == nil || !strings.Contains(err.Error(), "4294967294") {
			t.Errorf("LookupGroup(%s): %v, want refused naming the largest gid, 4294967294", gid, err)
		}
	}
	if g, err := LookupGroup("4294967294"); err != nil || g.GID() != 4294967294 {
		t.Errorf("LookupGroup(4294967294): %v, %v", g, err)
	}
}

func ownerGroup(t *testing.T, path string) (os.FileMode, int) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm(), int(fi.Sys().(*syscall.Stat_t).Gid)
}

// reachableDir is a temporary directory that anyone may search.
func reachableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestListenGivesTheGroupTheDirectoriesItCreates: the directories Listen
// creates on the way to the socket are the group's, 0750, so that its
// members reach the socket; those that were there are left alone.
func TestListenGivesTheGroupTheDirectoriesItCreates(t *testing.T) {
	gid := testgid.Unused(t)
	base := reachableDir(t)
	path := filepath.Join(base, "a", "b", "nri.sock")
	l, err := Listen(path, &Group{name: strconv.Itoa(gid), gid: gid})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, dir := range []string{filepath.Join(base, "a"), filepath.Join(base, "a", "b")} {
		if mode, got := ownerGroup(t, dir); mode != 0o750 || got != gid {
			t.Errorf("%s: mode %v group %d, want 0750 and group %d", dir, mode, got, gid)
		}
	}
	if mode, got := ownerGroup(t, base); mode != 0o755 || got == gid {
		t.Errorf("%s, which was there: mode %v group %d, want left as it was", base, mode, got)
	}
}

// TestListenRefusesADirectoryTheGroupCannotSearch: a directory on the way
// to the socket that the group's members cannot search is named, and
// nothing listens: a socket they cannot reach is an operator's puzzle.
func TestListenRefusesADirectoryTheGroupCannotSearch(t *testing.T) {
	gid := testgid.Unused(t)
	base := reachableDir(t)
	closed := filepath.Join(base, "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(closed, 0o710); err != nil { // searchable by its own group, which is not gid
		t.Fatal(err)
	}
	path := filepath.Join(closed, "run", "nri.sock")
	l, err := Listen(path, &Group{name: strconv.Itoa(gid), gid: gid})
	if err == nil {
		l.Close()
		t.Fatal("Listen succeeded under a directory the group cannot search")
	}
	if !strings.Contains(err.Error(), closed+" ") || !strings.Contains(err.Error(), "cannot search") {
		t.Errorf("error %q, want it to name %s, which the group cannot search", err, closed)
	}
	if _, err := os.Stat(filepath.Join(closed, "run")); err == nil {
		t.Error("Listen created directories under the one the group cannot search")
	}

	if err := os.Chown(closed, -1, gid); err != nil { // now the group's, g+x
		t.Fatal(err)
	}
	l, err = Listen(path, &Group{name: strconv.Itoa(gid), gid: gid})
	if err != nil {
		t.Fatalf("Listen under a directory the group may search: %v", err)
	}
	l.Close()
}
