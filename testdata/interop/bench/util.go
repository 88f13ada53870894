// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
)

// ---- log capture: both runtimes log at warning level and above into a ring ----

type logCapture struct {
	mu    sync.Mutex
	lines []string
}

const keepLogLines = 20

func (c *logCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		c.lines = append(c.lines, l)
	}
	if len(c.lines) > keepLogLines {
		c.lines = append([]string(nil), c.lines[len(c.lines)-keepLogLines:]...)
	}
	return len(p), nil
}

func (c *logCapture) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

func (c *logCapture) entry() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(c)
	l.SetLevel(logrus.WarnLevel)
	return logrus.NewEntry(l)
}

// useForStandardLogger sends the standard logrus logger (which the reference
// logs to, through github.com/containerd/log) into the capture.
func (c *logCapture) useForStandardLogger() {
	logrus.SetOutput(c)
	logrus.SetLevel(logrus.WarnLevel)
}

// ---- heap sampling ----

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap samples the heap every millisecond until the returned function
// is called, which returns the peak.
func sampleHeap() func() uint64 {
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		s := []metrics.Sample{{Name: heapMetric}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak
	}
}

// ---- plugin processes ----

// pluginProc is one reference-stub plugin connected to a runtime's socket.
type pluginProc struct {
	cmd    *exec.Cmd
	stderr *tailBuffer
	exited chan struct{}
	err    error // from Wait, valid once exited is closed
}

func startPlugin(bin, socket, idx, name, events string) (*pluginProc, error) {
	cmd := exec.Command(bin, "-idx", idx, "-name", name, "-socket", socket, "-events", events, "-log", "/dev/null")
	cmd.Env = pluginEnv()
	p := &pluginProc{cmd: cmd, stderr: &tailBuffer{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// pluginEnv is our environment without the NRI_ variables a stub would read.
func pluginEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NRI_") {
			env = append(env, kv)
		}
	}
	return env
}

// status describes how the plugin ended, or "running".
func (p *pluginProc) status() string {
	select {
	case <-p.exited:
	default:
		return "running"
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return "exit 0"
	case errors.As(p.err, &ee):
		return fmt.Sprintf("exit %d", ee.ExitCode())
	}
	return p.err.Error()
}

// stopGrace is how long a plugin gets to exit once its runtime stopped.
const stopGrace = 2 * time.Second

// waitExit waits up to d for the plugin to exit, and kills it if it has not.
func (p *pluginProc) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return false
	}
}

type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

// ---- misc ----

// tempDir makes a short temp directory, so that socket paths stay well under
// the 108-byte limit of unix socket addresses.
func tempDir() (string, error) {
	base := ""
	if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
		base = "/tmp"
	}
	return os.MkdirTemp(base, "nrib")
}

// waitFor polls cond every millisecond until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) error {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
