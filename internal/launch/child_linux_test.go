// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func init() { childMain = runChild }

// Child modes (the plugin name in the file name).
const (
	modeReport     = "report"     // send a childReport, then echo lines until EOF, exit 0
	modeTerm       = "term"       // say "ready", exit 0 on SIGTERM, ignore EOF
	modeIgnoreTerm = "ignoreterm" // say "ready", ignore SIGTERM and EOF: only SIGKILL ends it
	modeExit       = "exit"       // exit 7 at once
	modePrint      = "print"      // print printedLines and an over-long line, exit 7
	modeFlood      = "flood"      // write floodBytes to stdout and stderr, say "done", wait for EOF
)

// What modePrint writes: printedLines on stdout and stderr alternately, then
// a line of longLineBytes, then "last" without a newline.
var printedLines = []string{"out one", "err one", "out two", "err two"}

const (
	longLineBytes = 10 * MaxLineBytes
	floodBytes    = 16 << 20
)

const childExitCode = 7

// childReport is what a child saw at start-up.
type childReport struct {
	Pid       int
	Env       []string
	Args      []string
	Cwd       string
	FD3Socket bool    // fd 3 is a socket ...
	FD3Type   int     // ... of this SO_TYPE
	StdioNull [3]bool // fds 0-2 are the null device
	ExtraFDs  []int   // inherited descriptors above 3 (leaked from the runtime)
}

func runChild(mode string) int {
	// First, before this process opens anything itself.
	extra := openFDsAbove(3)

	sock := os.NewFile(3, "nri")
	if sock == nil {
		return 100
	}
	switch mode {
	case modeReport:
		r := childReport{Pid: os.Getpid(), Env: os.Environ(), Args: os.Args, ExtraFDs: extra}
		r.Cwd, _ = os.Getwd()
		var st syscall.Stat_t
		if syscall.Fstat(3, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK {
			r.FD3Socket = true
			r.FD3Type, _ = syscall.GetsockoptInt(3, syscall.SOL_SOCKET, syscall.SO_TYPE)
		}
		var null syscall.Stat_t
		if syscall.Stat(os.DevNull, &null) == nil {
			for fd := range 3 {
				if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFCHR && st.Rdev == null.Rdev {
					r.StdioNull[fd] = true
				}
			}
		}
		if err := json.NewEncoder(sock).Encode(r); err != nil {
			return 101
		}
		// Echo, so the test can check the socket in the other direction too.
		lines := bufio.NewScanner(sock)
		for lines.Scan() {
			if _, err := fmt.Fprintf(sock, "echo:%s\n", lines.Text()); err != nil {
				return 102
			}
		}
		return 0
	case modeTerm, modeIgnoreTerm:
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		// "ready" only once the handler is installed, so the test's SIGTERM
		// cannot hit the default action.
		if _, err := sock.WriteString("ready\n"); err != nil {
			return 103
		}
		<-term
		if mode == modeTerm {
			return 0
		}
		for range term {
		}
		return 104
	case modeExit:
		return childExitCode
	case modePrint:
		for i, l := range printedLines {
			w := []*os.File{os.Stdout, os.Stderr}[i%2]
			fmt.Fprintln(w, l)
		}
		os.Stderr.WriteString(strings.Repeat("x", longLineBytes) + "\n")
		os.Stderr.WriteString("last")
		return childExitCode
	case modeFlood:
		return flood(sock)
	default:
		return 105
	}
}

// openFDsAbove lists open descriptors above n using only raw system calls,
// so that the check itself opens nothing.
func openFDsAbove(n int) []int {
	var fds []int
	var st syscall.Stat_t
	for fd := n + 1; fd < 256; fd++ {
		if syscall.Fstat(fd, &st) == nil && !closeOnExec(fd) {
			fds = append(fds, fd)
		}
	}
	return fds
}

// closeOnExec tells a descriptor this child opened itself from one it
// inherited: whatever crosses exec has close-on-exec clear, while the Go
// runtime and the package inits that run before the child's main (the
// network poller's epoll and eventfd, started by any timer) set it.
func closeOnExec(fd int) bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	return errno == 0 && flags&syscall.FD_CLOEXEC != 0
}

// flood writes floodBytes to each of stderr and stdout: on stderr many
// short lines, on stdout one line with no newline at all, then "done" to the
// socket; it exits at EOF on the socket. It cannot finish unless its pipes
// are drained.
func flood(sock *os.File) int {
	chunk := []byte(strings.Repeat("y", 64<<10))
	lines := []byte(strings.Repeat("a short line\n", 64<<10/13))
	for written := 0; written < floodBytes; written += len(lines) {
		if _, err := os.Stderr.Write(lines); err != nil {
			return 107
		}
	}
	for written := 0; written < floodBytes; written += len(chunk) {
		if _, err := os.Stdout.Write(chunk); err != nil {
			return 106
		}
	}
	os.Stderr.WriteString("flood over\n")
	if _, err := sock.WriteString("done\n"); err != nil {
		return 108
	}
	_, _ = io.Copy(io.Discard, sock)
	return 0
}
