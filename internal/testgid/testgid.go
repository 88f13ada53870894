// SPDX-License-Identifier: Apache-2.0

// Package testgid finds, for tests that give a file to another group, a
// group id that no group of this host has: chown to it works as root
// without creating a group.
package testgid

import (
	"errors"
	"os"
	"os/user"
	"strconv"
	"testing"
)

// Unused is a gid in [40000, 60000) that no group of this host has. It
// fails the test unless it runs as root, which giving a file to another
// group needs.
func Unused(t testing.TB) int {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("giving a file to another group needs root")
	}
	for gid := 40000; gid < 60000; gid++ {
		_, err := user.LookupGroupId(strconv.Itoa(gid))
		if errors.As(err, new(user.UnknownGroupIdError)) {
			return gid
		}
	}
	t.Fatal("no unused gid in [40000, 60000)")
	return 0
}
