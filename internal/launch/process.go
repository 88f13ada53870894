package launch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Process is a started plugin process with the runtime end of its
// socketpair.
//
// One goroutine, started by Start, owns reaping: it waits for the process
// and then closes Exited. It ends when the process exits, and Stop and Kill
// guarantee that the process exits, so nothing outlives them.
type Process struct {
	id   string
	cmd  *exec.Cmd
	conn net.Conn

	closeOnce sync.Once

	exited  chan struct{}
	exitErr error // written once before exited is closed
}

// Start runs the plugin with the other end of a fresh socketpair as its fd 3.
//
// The child's environment is replaced by exactly NRI_PLUGIN_NAME,
// NRI_PLUGIN_IDX and NRI_PLUGIN_SOCKET=3: nothing of the runtime's
// environment (credentials, proxies, PATH) leaks into plugins. argv is just
// the plugin path, stdio is the null device and the working directory is the
// runtime's, as with the reference runtime, so existing plugins behave the
// same.
func Start(c Candidate) (*Process, error) {
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

	cmd := &exec.Cmd{
		Path: c.Path,
		Args: []string{c.Path},
		// Never nil: a nil Env would inherit the runtime's environment.
		Env: []string{
			"NRI_PLUGIN_NAME=" + c.Name,
			"NRI_PLUGIN_IDX=" + c.Index,
			"NRI_PLUGIN_SOCKET=3",
		},
		// nil Stdin/Stdout/Stderr means the null device, and no copying
		// goroutines that Wait would have to drain.
		ExtraFiles: []*os.File{peer}, // ExtraFiles[0] becomes fd 3
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("nrikit: start plugin %s: %w", id, err)
	}

	p := &Process{id: id, cmd: cmd, conn: conn, exited: make(chan struct{})}
	go p.reap()
	return p, nil
}

// reap is the only caller of Wait, so the exit status is collected exactly
// once and the process never lingers as a zombie.
func (p *Process) reap() {
	p.exitErr = p.cmd.Wait()
	close(p.exited)
}

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

// Stop closes the connection, sends SIGTERM and waits for the process to
// exit. If ctx is done first, the process is killed with SIGKILL and reaped,
// and Stop returns an error wrapping ctx.Err(). Closing the connection first
// gives plugins two chances to exit on their own: EOF on fd 3 (the reference
// stub exits on it) and SIGTERM.
//
// Stop is idempotent and safe to call concurrently with itself and Kill; it
// returns nil once the process has exited by itself or on SIGTERM. How the
// process exited is reported by ExitErr, not by Stop.
func (p *Process) Stop(ctx context.Context) error {
	p.closeConn()
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := p.signal(syscall.SIGTERM); err != nil {
		// Without a way to ask politely, do not wait out ctx for nothing.
		if kerr := p.Kill(); kerr != nil {
			return kerr
		}
		return fmt.Errorf("nrikit: stop plugin %s: SIGTERM: %w (killed)", p.id, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-ctx.Done():
	}
	select {
	case <-p.exited: // exited as ctx expired: it did not need the kill
		return nil
	default:
	}
	if err := p.Kill(); err != nil {
		return err
	}
	return fmt.Errorf("nrikit: stop plugin %s: did not exit after SIGTERM, killed: %w", p.id, ctx.Err())
}

// Kill sends SIGKILL, closes the connection and waits until the process is
// reaped. It is idempotent and safe to call concurrently.
func (p *Process) Kill() error {
	p.closeConn()
	if err := p.signal(syscall.SIGKILL); err != nil {
		// Waiting for an exit that SIGKILL did not cause could block forever.
		return fmt.Errorf("nrikit: kill plugin %s: %w", p.id, err)
	}
	<-p.exited
	return nil
}

// signal sends sig unless the process is already gone. os.Process uses a
// pidfd where available, so a signal racing with the reaper cannot hit a
// recycled PID.
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

// closeConn closes the runtime end once; a second Close would only report
// "use of closed network connection".
func (p *Process) closeConn() {
	p.closeOnce.Do(func() { p.conn.Close() })
}
