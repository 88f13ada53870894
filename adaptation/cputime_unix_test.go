// SPDX-License-Identifier: Apache-2.0

//go:build unix

package adaptation_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time, user and system, this process has used: the
// runtime side's cost of an event, without the plugin processes'.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
