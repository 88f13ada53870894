// SPDX-License-Identifier: Apache-2.0

//go:build unix

package regfile

import "syscall"

// openFlags makes opening a named pipe return at once instead of waiting for
// a writer; reads of a regular file are not affected by O_NONBLOCK.
const openFlags = syscall.O_NONBLOCK
