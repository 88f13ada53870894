// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asNritest makes the test binary run nritest's main (TestMain).
const asNritest = "NRITEST_TEST_RUN_MAIN"

// nritestProcess starts nritest as a process with its temporary
// directories in tmp; stdout and stderr are pipes.
func nritestProcess(t *testing.T, tmp string, args ...string) (cmd *exec.Cmd, stdout, stderr io.ReadCloser) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asNritest+"=1", "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err = cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // only if a check failed first
	return cmd, stdout, stderr
}

// waitExit waits for cmd within testLimit.
func waitExit(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(testLimit):
		t.Fatal("nritest did not exit")
		return nil
	}
}

// leftInTemp lists what nritest left in its temporary directory.
func leftInTemp(t *testing.T, tmp string) []string {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// readLine reads one line of r, within testLimit.
func readLine(t *testing.T, r io.Reader, holding string) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(r)
		for s.Scan() {
			if strings.Contains(s.Text(), holding) {
				lines <- s.Text()
				return
			}
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatalf("the output ended without a line holding %q", holding)
		}
		return l
	case <-time.After(testLimit):
		t.Fatalf("no line holding %q", holding)
		return ""
	}
}

// TestCleanupOnBrokenPipe: a reader that goes away (nritest | head -1, or
// its logs piped likewise) does not leave the samples' temporary directory
// behind: nritest stops its plugins and removes it.
func TestCleanupOnBrokenPipe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		args    []string
		closing func(stdout, stderr io.ReadCloser) io.ReadCloser
		line    string
	}{
		{"stdout", []string{"--linger", "200ms"}, func(o, e io.ReadCloser) io.ReadCloser { go io.Copy(io.Discard, e); return o }, "nritest: simulated runtime"},
		{"stderr", []string{"-v"}, func(o, e io.ReadCloser) io.ReadCloser { go io.Copy(io.Discard, o); return e }, "level="},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := shortTempDir(t)
			cmd, stdout, stderr := nritestProcess(t, tmp, c.args...)
			r := c.closing(stdout, stderr)
			readLine(t, r, c.line) // head -1
			r.Close()
			err := waitExit(t, cmd)
			if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				t.Errorf("nritest was killed by %v (%v)", st.Signal(), err)
			}
			if left := leftInTemp(t, tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %q", left)
			}
		})
	}
}

// TestCleanupOnSignal: SIGINT and SIGTERM end the run early, with the
// report, and leave no temporary directory behind.
func TestCleanupOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			tmp := shortTempDir(t)
			cmd, stdout, stderr := nritestProcess(t, tmp, "--linger", "10m")
			report := make(chan string, 1)
			go func() { b, _ := io.ReadAll(stdout); report <- string(b) }()
			readLine(t, stderr, "nritest: lingering")
			go io.Copy(io.Discard, stderr)
			if left := leftInTemp(t, tmp); len(left) != 1 || !strings.HasPrefix(left[0], "nritest-") {
				t.Fatalf("while running, the temporary directory holds %q, want one nritest-*", left)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// The report is read to its end before Wait, which closes the
			// pipe as soon as the process has exited, data unread or not.
			var out string
			select {
			case out = <-report:
			case <-time.After(testLimit):
				t.Fatal("nritest's output did not end")
			}
			waitExit(t, cmd)
			if !strings.Contains(out, "linger:    10m0s (interrupted)") || !strings.Contains(out, "RESULT: ") {
				t.Errorf("no report of the interrupted run:\n%s", out)
			}
			if left := leftInTemp(t, tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %q", left)
			}
		})
	}
}
