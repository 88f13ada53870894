// SPDX-License-Identifier: Apache-2.0

//go:build unix

// Whether a directory is the runtime's own and private, and whether a group can search it, on unix.

package accept

import (
	"fmt"
	"os"
	"syscall"
)

// ownStrictDir tells whether fi is a directory as nrikit creates it for the
// socket: 0700 and owned by this process's user.
func ownStrictDir(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.IsDir() && fi.Mode().Perm() == 0o700 && int(st.Uid) == os.Geteuid()
}

// unsearchable says why members of group gid who do not own fi cannot
// search it (mode and owners), or "" when they can: others may search it,
// or it is gid's and the group may.
func unsearchable(fi os.FileInfo, gid int) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	perm := fi.Mode().Perm()
	if perm&0o001 != 0 || int(st.Gid) == gid && perm&0o010 != 0 {
		return ""
	}
	return fmt.Sprintf("mode %04o, owner %d, group %d", perm, st.Uid, st.Gid)
}
