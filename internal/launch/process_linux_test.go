// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait for a child; generous for loaded CI machines
// running with -race, never slept through.
const waitLimit = 20 * time.Second

// startChild installs this test binary as plugin 10-<mode>, discovers it and
// starts it. The process is killed when the test ends.
func startChild(t *testing.T, mode string) (*Process, Candidate) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	symlink(t, exe, filepath.Join(dir, "10-"+mode))
	return startOnly(t, dir, nil)
}

// startOnly discovers the one plugin in dir and starts it. The process is
// killed when the test ends.
func startOnly(t *testing.T, dir string, out *Output) (*Process, Candidate) {
	t.Helper()
	return startOnlyWith(t, dir, func(c Candidate) (*Process, error) { return StartCapturing(c, out) })
}

// startOnlyWith is startOnly starting the plugin with start.
func startOnlyWith(t *testing.T, dir string, start func(Candidate) (*Process, error)) (*Process, Candidate) {
	t.Helper()
	found, skipped, err := Discover(dir, "")
	if err != nil || len(found) != 1 || len(skipped) != 0 {
		t.Fatalf("Discover: found %v, skipped %v, %v", found, skipped, err)
	}
	p, err := start(found[0])
	// A test that has just written its plugin file races with forks in
	// parallel tests: until such a child execs, it holds the file open
	// for writing, and exec fails with ETXTBSY (go.dev/issue/22315).
	// Installed plugins are not being written as the runtime starts them.
	for deadline := time.Now().Add(waitLimit); errors.Is(err, syscall.ETXTBSY) && time.Now().Before(deadline); {
		p, err = start(found[0])
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Kill(); err != nil {
			t.Errorf("cleanup Kill: %v", err)
		}
	})
	return p, found[0]
}

// readLine reads one line from the plugin, failing the test after waitLimit.
func readLine(t *testing.T, r *bufio.Reader, conn net.Conn) string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(waitLimit)); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading from plugin: %v (read %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// waitReady waits for a term/ignoreterm child to install its SIGTERM handler.
func waitReady(t *testing.T, p *Process) {
	t.Helper()
	if got := readLine(t, bufio.NewReader(p.Conn()), p.Conn()); got != "ready" {
		t.Fatalf("child said %q, want ready", got)
	}
}

func waitExited(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(waitLimit):
		t.Fatalf("process %d did not exit within %v", p.Pid(), waitLimit)
	}
}

// exitSignal returns the signal that ended the process, or 0.
func exitSignal(err error) syscall.Signal {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	}
	return 0
}

func assertConnClosed(t *testing.T, p *Process) {
	t.Helper()
	if _, err := p.Conn().Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after stop: %v, want net.ErrClosed", err)
	}
}

// What the child sees: exactly the three variables, argv = [path], fd 3 a
// stream socket working both ways, null stdio, nothing else inherited.
func TestStartChildView(t *testing.T) {
	t.Parallel()
	p, c := startChild(t, modeReport)
	conn := p.Conn()
	r := bufio.NewReader(conn)

	var rep childReport
	if err := json.Unmarshal([]byte(readLine(t, r, conn)), &rep); err != nil {
		t.Fatal(err)
	}
	wantEnv := []string{"NRI_PLUGIN_NAME=report", "NRI_PLUGIN_IDX=10", "NRI_PLUGIN_SOCKET=3"}
	if got := slices.Sorted(slices.Values(rep.Env)); !reflect.DeepEqual(got, slices.Sorted(slices.Values(wantEnv))) {
		t.Errorf("child env = %q, want exactly %q", rep.Env, wantEnv)
	}
	if want := []string{c.Path}; !reflect.DeepEqual(rep.Args, want) {
		t.Errorf("child argv = %q, want %q", rep.Args, want)
	}
	if !rep.FD3Socket || rep.FD3Type != syscall.SOCK_STREAM {
		t.Errorf("child fd 3: socket %v, type %d; want a SOCK_STREAM socket", rep.FD3Socket, rep.FD3Type)
	}
	if rep.StdioNull != [3]bool{true, true, true} {
		t.Errorf("child stdin/stdout/stderr on the null device: %v", rep.StdioNull)
	}
	// Descriptors this test process itself inherited without close-on-exec
	// pass through any exec; anything else beyond fd 3 leaked from Start.
	if leaked := slices.DeleteFunc(rep.ExtraFDs, inheritable); len(leaked) != 0 {
		t.Errorf("child inherited descriptors %v beyond fd 3", leaked)
	}
	if wd, _ := os.Getwd(); rep.Cwd != wd {
		t.Errorf("child cwd = %q, want the runtime's %q", rep.Cwd, wd)
	}
	if rep.Pid != p.Pid() {
		t.Errorf("Pid() = %d, child says %d", p.Pid(), rep.Pid)
	}

	// The runtime end works the other way too.
	for _, msg := range []string{"ping", "pong"} {
		if _, err := io.WriteString(conn, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if got := readLine(t, r, conn); got != "echo:"+msg {
			t.Errorf("echo = %q, want %q", got, "echo:"+msg)
		}
	}

	// The report child exits on EOF or on SIGTERM, whichever comes first.
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := p.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := p.ExitErr(); err != nil && exitSignal(err) != syscall.SIGTERM {
		t.Errorf("ExitErr = %v, want exit on EOF or SIGTERM", err)
	}
	assertConnClosed(t, p)
}

// inheritable reports whether fd is open in this process without
// close-on-exec, so that every child inherits it whatever Start does.
func inheritable(fd int) bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	return errno == 0 && flags&syscall.FD_CLOEXEC == 0
}

func TestStopGraceful(t *testing.T) {
	t.Parallel()
	p, _ := startChild(t, modeTerm)
	waitReady(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Stop returned before the process exited")
	}
	if err := p.ExitErr(); err != nil {
		t.Errorf("ExitErr = %v, want exit 0 from the SIGTERM handler", err)
	}
	assertConnClosed(t, p)
	if err := p.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopForced(t *testing.T) {
	t.Parallel()
	p, _ := startChild(t, modeIgnoreTerm)
	waitReady(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := p.Stop(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "10-ignoreterm") {
		t.Errorf("Stop = %v, want a deadline error naming 10-ignoreterm", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Stop returned before the process was reaped")
	}
	if sig := exitSignal(p.ExitErr()); sig != syscall.SIGKILL {
		t.Errorf("ExitErr = %v, want killed by SIGKILL", p.ExitErr())
	}
	assertConnClosed(t, p)
	// Idempotent, even with a context that is already done.
	if err := p.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// A context that is already done skips the grace period.
func TestStopCancelled(t *testing.T) {
	t.Parallel()
	p, _ := startChild(t, modeIgnoreTerm)
	waitReady(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Stop(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Stop = %v, want context.Canceled", err)
	}
	if sig := exitSignal(p.ExitErr()); sig != syscall.SIGKILL {
		t.Errorf("ExitErr = %v, want killed by SIGKILL", p.ExitErr())
	}
}

func TestKill(t *testing.T) {
	t.Parallel()
	p, _ := startChild(t, modeIgnoreTerm)
	waitReady(t, p)
	select {
	case <-p.Exited():
		t.Fatal("Exited closed while the process runs")
	default:
	}
	if err := p.ExitErr(); err != nil {
		t.Errorf("ExitErr while running = %v, want nil", err)
	}
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Kill returned before the process was reaped")
	}
	if sig := exitSignal(p.ExitErr()); sig != syscall.SIGKILL {
		t.Errorf("ExitErr = %v, want killed by SIGKILL", p.ExitErr())
	}
	assertConnClosed(t, p)
	if err := p.Kill(); err != nil {
		t.Errorf("second Kill: %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Errorf("Stop after Kill: %v", err)
	}
}

// A plugin that dies by itself: Exited closes without Stop, and the runtime
// end sees EOF because the parent closed its copy of the child's end.
func TestExitedOnItsOwn(t *testing.T) {
	t.Parallel()
	p, _ := startChild(t, modeExit)
	waitExited(t, p)
	var ee *exec.ExitError
	if err := p.ExitErr(); !errors.As(err, &ee) || ee.ExitCode() != childExitCode {
		t.Errorf("ExitErr = %v, want exit status %d", err, childExitCode)
	}
	if err := p.Conn().SetReadDeadline(time.Now().Add(waitLimit)); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Conn().Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read after exit = %d, %v; want EOF", n, err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Errorf("Stop after exit: %v", err)
	}
	if err := p.Kill(); err != nil {
		t.Errorf("Kill after exit: %v", err)
	}
	assertConnClosed(t, p)
}

// Stop and Kill from many goroutines at once: all return, the process is
// reaped once, and -race sees no conflict.
func TestStopKillConcurrent(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{modeTerm, modeIgnoreTerm} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			p, _ := startChild(t, mode)
			waitReady(t, p)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if i%2 == 0 {
						_ = p.Stop(ctx) // may report the deadline; the process must be gone
					} else if err := p.Kill(); err != nil {
						t.Errorf("Kill: %v", err)
					}
					select {
					case <-p.Exited():
					default:
						t.Error("Stop/Kill returned before the process was reaped")
					}
				}()
			}
			wg.Wait()
			_ = p.ExitErr()
		})
	}
}

// Start failures leave no descriptor behind, and a full Start/Stop cycle
// leaves none either (the child's end is closed in the parent). Not
// parallel: it counts this process's descriptors.
func TestStartNoFDLeak(t *testing.T) {
	before := countFDs(t)

	c := Candidate{Index: "10", Name: "missing", Path: filepath.Join(t.TempDir(), "10-missing")}
	_, err := Start(c)
	if err == nil || !strings.Contains(err.Error(), "10-missing") {
		t.Errorf("Start(missing) = %v, want an error naming 10-missing", err)
	}
	if after := countFDs(t); after != before {
		t.Errorf("failed Start: %d descriptors open, %d before", after, before)
	}

	p, _ := startChild(t, modeTerm)
	waitReady(t, p)
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := countFDs(t); after != before {
		t.Errorf("Start/Stop: %d descriptors open, %d before", after, before)
	}
}

func countFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(entries)
}
