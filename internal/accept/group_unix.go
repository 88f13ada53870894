// SPDX-License-Identifier: Apache-2.0

//go:build unix

// Whether a directory is the runtime's own and private, on unix.

package accept

import (
	"os"
	"syscall"
)

// ownStrictDir tells whether fi is a directory as nrikit creates it for the
// socket: 0700 and owned by this process's user.
func ownStrictDir(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.IsDir() && fi.Mode().Perm() == 0o700 && int(st.Uid) == os.Geteuid()
}
