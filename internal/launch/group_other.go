// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package launch

import "syscall"

// Start fails before it runs anything where socketpair is unsupported, so
// these never act on a process; they keep process.go portable.

func groupAttr() *syscall.SysProcAttr { return nil }

func signalGroup(int, syscall.Signal) (bool, error) { return false, nil }

func pidInUse(int) bool { return false }

func groupRunning(int) bool { return false }
