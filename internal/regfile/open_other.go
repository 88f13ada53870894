// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package regfile

// openFlags: elsewhere there is no named pipe that an open waits on in a
// plain directory, and Open's Stat refuses what is not a regular file.
const openFlags = 0
