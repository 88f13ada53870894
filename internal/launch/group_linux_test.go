// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Shell snippets for plugins that are wrapper scripts. Each starts a child
// that writes its pid to fd 3 and then becomes `sleep 1000`; the child
// inherits the plugin's process group. A child that ignores SIGTERM says so
// only once its trap is set, so the test cannot signal it too early.
const (
	childIgnoresTerm = `sh -c 'trap "" TERM; echo $$ >&3; exec sleep 1000' &` + "\n"
	childDiesOnTerm  = `sh -c 'echo $$ >&3; exec sleep 1000' &` + "\n"
)

// The plugin runs as the leader of its own process group, and Stop and Kill
// reach the processes it started, including after it has exited itself.
func TestProcessGroup(t *testing.T) {
	t.Parallel()
	stop := func(d time.Duration) func(*Process) error {
		return func(p *Process) error {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			return p.Stop(ctx)
		}
	}
	short, long := stop(100*time.Millisecond), stop(waitLimit)
	kill := (*Process).Kill

	for _, tc := range []struct {
		name   string
		script string
		// exitsFirst: the plugin exits on its own, leaving its child,
		// before end is called.
		exitsFirst bool
		end        func(*Process) error
		wantErr    string         // substring; "" means nil
		wantSig    syscall.Signal // that ended the plugin; 0 means exit status 0
	}{
		// The script and its child both ignore SIGTERM: the deadline kills both.
		{
			name:    "all-ignore-term/stop",
			script:  "trap '' TERM\nsleep 1000 &\necho $! >&3\nwait\n",
			end:     short,
			wantErr: "did not exit after SIGTERM, killed",
			wantSig: syscall.SIGKILL,
		},
		{
			name:    "all-ignore-term/kill",
			script:  "trap '' TERM\nsleep 1000 &\necho $! >&3\nwait\n",
			end:     kill,
			wantSig: syscall.SIGKILL,
		},
		// The script dies of SIGTERM, its child ignores it: Stop waits
		// for the child until the deadline, then kills it. (Whether the
		// script was reaped by then, which the error says, depends on
		// how loaded the machine is.)
		{
			name:    "child-ignores-term/stop",
			script:  childIgnoresTerm + "wait\n",
			end:     short,
			wantErr: "did not exit after SIGTERM, killed",
			wantSig: syscall.SIGTERM,
		},
		{
			name:    "child-ignores-term/kill",
			script:  childIgnoresTerm + "wait\n",
			end:     kill,
			wantSig: syscall.SIGKILL,
		},
		// Both die of SIGTERM: Stop returns nil once the child is gone,
		// even though nothing reaps it (it may stay a zombie).
		{
			name:    "all-die-on-term/stop",
			script:  childDiesOnTerm + "wait\n",
			end:     long,
			wantSig: syscall.SIGTERM,
		},
		// The script exits by itself and leaves its child running.
		{
			name:       "orphan-ignores-term/stop",
			script:     childIgnoresTerm + "exit 0\n",
			exitsFirst: true,
			end:        short,
			wantErr:    "exited, but processes it started did not exit after SIGTERM, killed",
		},
		{
			name:       "orphan-ignores-term/kill",
			script:     childIgnoresTerm + "exit 0\n",
			exitsFirst: true,
			end:        kill,
		},
		{
			name:       "orphan-dies-on-term/stop",
			script:     childDiesOnTerm + "exit 0\n",
			exitsFirst: true,
			end:        long,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "10-wrapper", "#!/bin/sh\n"+tc.script, 0o755)
			p, _ := startOnly(t, dir, nil)
			child := readPid(t, p)

			if tc.exitsFirst {
				waitExited(t, p)
				if state := procState(child); state == 0 || state == 'Z' {
					t.Fatalf("child %d: state %q, want it running after the plugin exited", child, state)
				}
			} else if pgid, err := syscall.Getpgid(p.Pid()); err != nil || pgid != p.Pid() {
				t.Errorf("plugin %d: pgid %d, %v; want its own group", p.Pid(), pgid, err)
			}
			if pgid, err := syscall.Getpgid(child); err != nil || pgid != p.Pid() {
				t.Errorf("child %d: pgid %d, %v; want the plugin's group %d", child, pgid, err, p.Pid())
			}

			err := tc.end(p)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("got %v, want nil", err)
			case tc.wantErr != "" && (!strings.Contains(fmt.Sprint(err), tc.wantErr) || !errors.Is(err, context.DeadlineExceeded)):
				t.Errorf("got %v, want a deadline error containing %q", err, tc.wantErr)
			}
			select {
			case <-p.Exited():
			default:
				t.Fatal("returned before the plugin was reaped")
			}
			if sig := exitSignal(p.ExitErr()); sig != tc.wantSig || tc.wantSig == 0 && p.ExitErr() != nil {
				t.Errorf("plugin ExitErr = %v, want signal %d (0: exit status 0)", p.ExitErr(), tc.wantSig)
			}
			if err := syscall.Kill(p.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("plugin %d after reaping: kill 0 = %v, want ESRCH", p.Pid(), err)
			}
			waitNotRunning(t, child)

			// Nothing is left to wait for, whatever the context.
			done, cancel := context.WithCancel(context.Background())
			cancel()
			if err := p.Stop(done); err != nil {
				t.Errorf("Stop again: %v", err)
			}
			if err := p.Kill(); err != nil {
				t.Errorf("Kill again: %v", err)
			}
		})
	}
}

// readPid reads the pid that the plugin's child writes to fd 3.
func readPid(t *testing.T, p *Process) int {
	t.Helper()
	line := readLine(t, bufio.NewReader(p.Conn()), p.Conn())
	pid, err := strconv.Atoi(line)
	if err != nil || pid <= 0 {
		t.Fatalf("plugin wrote %q, want a pid", line)
	}
	return pid
}

// procState returns the state letter of pid from /proc, or 0 if there is no
// such process.
func procState(pid int) byte {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2]
	}
	return 0
}

// waitNotRunning waits until pid, a process this test does not reap, is
// gone or a zombie. SIGKILL takes effect asynchronously, and init reaps
// orphans late or, in some containers, never.
func waitNotRunning(t *testing.T, pid int) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		switch procState(pid) {
		case 0, 'Z', 'X':
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("process %d still running (state %q) after %v", pid, procState(pid), waitLimit)
		}
	}
}

// Once the plugin is reaped, a process with its pid means that the group ID
// was taken by someone else: the group is not signalled then.
func TestGroupIDReused(t *testing.T) {
	t.Parallel()
	// A stranger leading a group whose ID is "our" plugin's pid.
	stranger := exec.Command("sleep", "1000")
	stranger.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stranger.Process.Kill()
		_ = stranger.Wait()
	}()
	pid := stranger.Process.Pid
	if exists, err := signalGroup(pid, 0); !exists || err != nil {
		t.Fatalf("signalGroup(%d, 0) = %v, %v; want the stranger's group", pid, exists, err)
	}

	reaped := make(chan struct{})
	close(reaped)
	p := &Process{id: "10-gone", pgid: pid, exited: reaped}
	if sent, err := p.signalGroup(0); sent || err != nil {
		t.Errorf("signalGroup after reuse = %v, %v; want false, nil", sent, err)
	}
	if p.groupRunning() {
		t.Error("groupRunning after reuse = true")
	}
	if !p.groupGone.Load() {
		t.Error("group not marked gone")
	}
	if state := procState(pid); state == 0 || state == 'Z' {
		t.Errorf("stranger %d: state %q, want untouched", pid, state)
	}

	// Never the caller's own group, nor every process.
	if _, err := signalGroup(0, 0); err == nil {
		t.Error("signalGroup(0) succeeded")
	}
}

// A zombie left in the group does not hold Stop up: orphans stay zombies
// until init reaps them, which some inits in containers never do. Here the
// zombie is this test's own child, moved into the plugin's group, so that
// it stays a zombie for as long as the test wants.
func TestStopZombieInGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "10-sleep", "#!/bin/sh\nexec sleep 1000\n", 0o755)
	p, _ := startOnly(t, dir, nil)

	zombie := exec.Command("sleep", "1000")
	zombie.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: p.Pid()}
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	if pgid, err := syscall.Getpgid(zombie.Process.Pid); err != nil || pgid != p.Pid() {
		t.Fatalf("zombie-to-be: pgid %d, %v; want %d", pgid, err, p.Pid())
	}
	if err := zombie.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitNotRunning(t, zombie.Process.Pid)

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := p.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if sig := exitSignal(p.ExitErr()); sig != syscall.SIGTERM {
		t.Errorf("ExitErr = %v, want the SIGTERM", p.ExitErr())
	}
	if state := procState(zombie.Process.Pid); state != 'Z' {
		t.Errorf("zombie state %q, want Z until this test reaps it", state)
	}
}
