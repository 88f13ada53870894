// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// groupAttr starts the plugin as the leader of a new process group whose ID
// is its pid, so that Stop and Kill reach whatever it starts (a wrapper
// script's children), and so that a terminal's Ctrl-C, sent to the
// runtime's foreground group, does not reach plugins directly: the runtime
// stops them. The child calls setpgid before exec, so the group exists once
// Start returns.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to every process of group pgid; sig 0 only checks.
// It reports false, with no error, when the group has no process left.
func signalGroup(pgid int, sig syscall.Signal) (bool, error) {
	if pgid <= 0 {
		// kill(0) is the caller's own group and kill(-1) every process
		// it may signal: never.
		return false, fmt.Errorf("invalid process group %d", pgid)
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	return err == nil, err
}

// pidInUse reports whether a process or thread with this pid exists.
func pidInUse(pid int) bool {
	return pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// groupRunning reports whether group pgid has a process that is not a
// zombie. kill counts zombies as members, and orphaned children of a plugin
// stay zombies until init reaps them, which an init that does not reap
// (common in containers) never does; /proc tells them apart.
func groupRunning(pgid int) bool {
	if exists, err := signalGroup(pgid, 0); !exists && err == nil {
		return false
	}
	running, ok := procGroupRunning(pgid)
	return running || !ok
}

// procGroupRunning scans /proc for a process of group pgid that is not a
// zombie. ok is false when /proc cannot answer: not mounted, or mounted for
// another PID namespace, whose pids would not match ours.
func procGroupRunning(pgid int) (running, ok bool) {
	if self, err := os.Readlink("/proc/self"); err != nil || self != strconv.Itoa(os.Getpid()) {
		return false, false
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return false, false
	}
	want := []byte(strconv.Itoa(pgid))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and
		// parentheses, so fields are counted from the last ')'.
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited since the listing
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 || !bytes.Equal(f[2], want) {
			continue
		}
		if state := string(f[0]); state != "Z" && state != "X" {
			return true, true
		}
	}
	return false, true
}
