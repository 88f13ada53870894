// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

// Process is a started plugin process with the runtime end of its
// socketpair.
//
// The plugin runs in a process group of its own, and Stop and Kill signal
// the whole group, so that processes the plugin starts (a wrapper script's
// children) do not outlive it.
//
// One goroutine, started by Start, owns reaping: it waits for the process
// and then closes Exited. It ends when the process exits (with captured
// output, once that is read, OutputGrace at most later), and Stop and Kill
// guarantee that the process exits and wait for that, so nothing outlives
// them.
type Process struct {
	id   string
	cmd  *exec.Cmd
	conn net.Conn
	pgid int // the plugin's process group: its pid, never 0

	closeOnce sync.Once

	// groupGone is set once no process of the group can be running any
	// more: it was seen empty (an empty group never gets members again) or
	// was sent SIGKILL. From then on the group is never signalled, because
	// once empty its ID is free for another group to take.
	groupGone atomic.Bool

	exited  chan struct{}
	exitErr error // written once before exited is closed

	output  *Output       // nil: stdout and stderr are the null device
	drained chan struct{} // closed when reap has ended, output read or abandoned
}

// OutputGrace is how long the output of an exited plugin is still read
// before it is abandoned: a crashed plugin's last lines are in the pipe when
// it exits, but a process it started may keep the pipe open for ever.
const OutputGrace = 500 * time.Millisecond

// startHint explains the one start error that misleads: a script whose
// interpreter (its #! line) is missing fails as if the script itself were.
func startHint(path string, err error) string {
	if _, statErr := os.Stat(path); errors.Is(err, fs.ErrNotExist) && statErr == nil {
		return " (the file exists: is the interpreter on its #! line missing?)"
	}
	return ""
}

// Start runs the plugin with the other end of a fresh socketpair as its fd 3.
//
// The child's environment is replaced by exactly NRI_PLUGIN_NAME,
// NRI_PLUGIN_IDX and NRI_PLUGIN_SOCKET=3: nothing of the runtime's
// environment (credentials, proxies, PATH) leaks into plugins. argv is just
// the plugin path, stdio is the null device and the working directory is the
// runtime's, as with the reference runtime, so existing plugins behave the
// same. The plugin leads a new process group (see Process).
func Start(c Candidate) (*Process, error) { return StartCapturing(c, nil) }

// StartCapturing is Start with the plugin's stdout and stderr read by out
// (from NewOutput) instead of going to the null device; nil is Start.
func StartCapturing(c Candidate, out *Output) (*Process, error) {
	id := c.ID()
	local, peer, err := socketpair("nri-" + id)
	if err != nil {
		return nil, fmt.Errorf("nrikit: start plugin %s: %w", id, err)
	}
	// The child's end must not stay open in the runtime on any path:
	// otherwise the runtime would never see EOF when the plugin dies.
	defer peer.Close()

	// FileConn dups the descriptor (close-on-exec), so local is closed
	// either way and conn owns its own copy.
	conn, err := net.FileConn(local)
	local.Close()
	if err != nil {
		return nil, fmt.Errorf("nrikit: start plugin %s: socket: %w", id, err)
	}

	var stdout, stderr *os.File // nil: the null device
	if out != nil {
		if stdout, stderr, err = out.pipes(); err != nil {
			conn.Close()
			return nil, fmt.Errorf("nrikit: start plugin %s: output: %w", id, err)
		}
	}
	cmd := &exec.Cmd{
		Path: c.Path,
		Args: []string{c.Path},
		// Never nil: a nil Env would inherit the runtime's environment.
		Env: []string{
			"NRI_PLUGIN_NAME=" + c.Name,
			"NRI_PLUGIN_IDX=" + c.Index,
			"NRI_PLUGIN_SOCKET=3",
		},
		// nil Stdin/Stdout/Stderr means the null device. Files, not
		// writers: Wait then has no copying goroutines to wait for.
		Stdout:      stdout,
		Stderr:      stderr,
		ExtraFiles:  []*os.File{peer}, // ExtraFiles[0] becomes fd 3
		SysProcAttr: groupAttr(),
	}
	err = cmd.Start()
	if out != nil {
		// The child has its copies; ours would keep the pipes from ending.
		stdout.Close()
		stderr.Close()
	}
	if err != nil {
		conn.Close()
		if out != nil {
			out.discard()
		}
		return nil, fmt.Errorf("nrikit: start plugin %s: %w%s", id, err, startHint(c.Path, err))
	}
	if out != nil {
		out.start()
	}

	p := &Process{id: id, cmd: cmd, conn: conn, pgid: cmd.Process.Pid, exited: make(chan struct{}), output: out, drained: make(chan struct{})}
	go p.reap()
	return p, nil
}

// reap is the only caller of Wait, so the exit status is collected exactly
// once and the process never lingers as a zombie.
func (p *Process) reap() {
	p.exitErr = p.cmd.Wait()
	// Until now the unreaped leader held the group ID. If the group is empty
	// now it is over, and its ID may go to another group: see groupGone.
	if exists, err := signalGroup(p.pgid, 0); !exists && err == nil {
		p.groupGone.Store(true)
	}
	close(p.exited)
	p.finishOutput()
	close(p.drained)
}

// finishOutput lets the output of the exited plugin be read to its end, for
// OutputGrace at most.
func (p *Process) finishOutput() {
	if p.output == nil {
		return
	}
	if !syncx.Within(p.output.Done(), OutputGrace) {
		p.output.abandon()
		<-p.output.Done()
	}
}

// Output returns what reads the plugin's stdout and stderr, or nil if they
// go to the null device.
func (p *Process) Output() *Output { return p.output }

// LastLines returns the last lines the plugin wrote, nil if none, if its
// output is not captured, or if p is nil (a plugin not launched). Once the
// plugin has exited, it waits up to wait for the output to be read to its
// end, so that a crashed plugin's last words are in.
func (p *Process) LastLines(wait time.Duration) []Line {
	if p == nil || p.output == nil {
		return nil
	}
	if syncx.Closed(p.Exited()) {
		syncx.Within(p.Drained(), wait)
	}
	return p.output.Lines()
}

// Drained is closed once the plugin has exited and its output has been read
// to its end or abandoned (OutputGrace after the exit): from then on the
// Process runs no goroutine.
func (p *Process) Drained() <-chan struct{} { return p.drained }

// Conn returns the runtime end of the socketpair, to be used as the mux
// trunk. Stop and Kill close it.
func (p *Process) Conn() net.Conn { return p.conn }

// Pid returns the process ID of the plugin.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr returns how the process ended once Exited is closed: nil for exit
// status 0, otherwise an *exec.ExitError (exit code or signal). Before the
// process has exited it returns nil.
func (p *Process) ExitErr() error {
	select {
	case <-p.exited:
		return p.exitErr
	default:
		return nil
	}
}

// Stop closes the connection, sends SIGTERM to the plugin's process group
// and waits until the plugin has exited, no other process of its group is
// running and its output is read (see Drained). If ctx is done first, the group is killed with SIGKILL, the
// plugin is reaped, and Stop returns an error wrapping ctx.Err(). Closing the
// connection first gives plugins two chances to exit on their own: EOF on
// fd 3 (the reference stub exits on it) and SIGTERM.
//
// The group is signalled even when the plugin itself has already exited: a
// wrapper that forks may exit before its child. The other processes of the
// group are not the runtime's children to wait for, so Stop polls for them
// once the plugin has exited.
//
// Stop is idempotent and safe to call concurrently with itself and Kill; it
// returns nil once the process has exited by itself or on SIGTERM. How the
// process exited is reported by ExitErr, not by Stop.
func (p *Process) Stop(ctx context.Context) error {
	p.closeConn()
	sent, err := p.signalGroup(syscall.SIGTERM)
	if err == nil && !sent {
		// No group left: the plugin has exited (then this does nothing),
		// or it moved itself to another group.
		err = p.signal(syscall.SIGTERM)
	}
	if err != nil {
		// Without a way to ask politely, do not wait out ctx for nothing.
		if kerr := p.Kill(); kerr != nil {
			return kerr
		}
		return fmt.Errorf("nrikit: stop plugin %s: SIGTERM: %w (killed)", p.id, err)
	}
	exited, gone := p.waitGone(ctx)
	if gone {
		<-p.drained // OutputGrace at most after the exit
		return nil
	}
	if err := p.Kill(); err != nil {
		return err
	}
	if exited {
		return fmt.Errorf("nrikit: stop plugin %s: exited, but processes it started did not exit after SIGTERM, killed: %w", p.id, ctx.Err())
	}
	return fmt.Errorf("nrikit: stop plugin %s: did not exit after SIGTERM, killed: %w", p.id, ctx.Err())
}

// Bounds of the interval at which waitGone polls the process group: short
// enough not to delay plugins that exit at once, long enough to cost little
// for those that take their time.
const (
	pollMin = time.Millisecond
	pollMax = 50 * time.Millisecond
)

// waitGone waits until the plugin has been reaped and no other process of
// its group is running, or until ctx is done. exited reports whether the
// plugin itself was reaped.
func (p *Process) waitGone(ctx context.Context) (exited, gone bool) {
	select {
	case <-p.exited:
	case <-ctx.Done():
		select {
		case <-p.exited: // exited as ctx expired: it did not need the kill
		default:
			return false, false
		}
	}
	for delay := pollMin; p.groupRunning(); delay = min(2*delay, pollMax) {
		if ctx.Err() != nil {
			return true, false
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done(): // look once more, then give up
			t.Stop()
		}
	}
	return true, true
}

// Kill sends SIGKILL to the plugin's process group, closes the connection
// and waits until the plugin is reaped. The other processes of the group die
// of the same signal but are not the runtime's children to wait for. Kill is
// idempotent and safe to call concurrently.
func (p *Process) Kill() error {
	p.closeConn()
	_, gerr := p.signalGroup(syscall.SIGKILL)
	if gerr == nil {
		p.groupGone.Store(true) // SIGKILL cannot be caught or ignored
	}
	// The plugin itself too, in case it left its group: waiting for an exit
	// that SIGKILL did not cause could block forever.
	if err := p.signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("nrikit: kill plugin %s: %w", p.id, err)
	}
	<-p.drained
	if gerr != nil {
		return fmt.Errorf("nrikit: kill plugin %s: process group: %w", p.id, gerr)
	}
	return nil
}

// signal sends sig to the plugin process alone, unless it is already gone.
// os.Process uses a pidfd where available, so a signal racing with the
// reaper cannot hit a recycled PID.
func (p *Process) signal(sig os.Signal) error {
	err := p.cmd.Process.Signal(sig)
	if err == nil || errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	select {
	case <-p.exited: // exited between the checks: nothing to signal
		return nil
	default:
		return err
	}
}

// signalGroup sends sig to the plugin's process group. It reports false,
// with no error, when the group has no process left.
func (p *Process) signalGroup(sig syscall.Signal) (bool, error) {
	if !p.groupMayExist() {
		return false, nil
	}
	sent, err := signalGroup(p.pgid, sig)
	if !sent && err == nil {
		p.groupGone.Store(true)
	}
	return sent, err
}

// groupRunning reports whether a process of the plugin's group other than a
// zombie is left.
func (p *Process) groupRunning() bool {
	if !p.groupMayExist() {
		return false
	}
	if !groupRunning(p.pgid) {
		p.groupGone.Store(true) // zombies do not fork
		return false
	}
	return true
}

// groupMayExist reports whether the plugin's group may still have processes
// to signal.
//
// While the plugin is unreaped, its pid is the group ID and nothing else can
// have it. Once the plugin is reaped, the ID stays reserved only while the
// group has members: the group may empty unobserved (reap checks only once)
// and its ID go to a new process that leads a group of its own — a
// container's init, another plugin. A process with that pid shows that the
// ID was reused, so the group is not signalled then. What this cannot see,
// a reused ID whose new leader has exited in turn, needs the pid counter to
// wrap around in between.
func (p *Process) groupMayExist() bool {
	if p.groupGone.Load() {
		return false
	}
	select {
	case <-p.exited:
		if pidInUse(p.pgid) {
			p.groupGone.Store(true)
			return false
		}
	default:
	}
	return true
}

// closeConn closes the runtime end once; a second Close would only report
// "use of closed network connection".
func (p *Process) closeConn() {
	p.closeOnce.Do(func() { p.conn.Close() })
}
