// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"runtime"
)

// maxSocketPath is the longest path a unix socket may have on goos, in
// bytes: sockaddr_un's sun_path holds it with its terminating NUL (108
// bytes on linux and windows, 104 on darwin and the BSDs).
func maxSocketPath(goos string) int {
	switch goos {
	case "darwin", "ios", "freebsd", "netbsd", "openbsd", "dragonfly":
		return 104 - 1
	}
	return 108 - 1
}

// checkSocketPath refuses a --socket path the OS cannot bind, up front:
// listening would fail only once the plugins had started.
func checkSocketPath(path string) error {
	if limit := maxSocketPath(runtime.GOOS); len(path) > limit {
		return fmt.Errorf("--socket: %s is %d bytes, over the %d a unix socket path may have on %s; use a shorter path",
			path, len(path), limit, runtime.GOOS)
	}
	return nil
}
