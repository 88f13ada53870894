// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/sockpair"
)

// child is a plugin process started by a test, and the runtime end of its
// trunk.
type child struct {
	cmd    *exec.Cmd
	rt     *fakeRuntime
	exited chan error // receives cmd.Wait's result once
	out    string     // the child's stdout and stderr
}

// watch reaps the process in the background and makes sure it is gone, and
// its reaper ended, when the test ends.
func watch(t *testing.T, cmd *exec.Cmd) chan error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(waitTimeout):
			t.Error("plugin process not reaped")
		}
	})
	return exited
}

// launch starts a plugin the way the runtime starts a pre-installed one:
// the launcher WriteLauncher made, argv of just its path, an environment of
// exactly the three NRI_* variables, and one end of a socketpair as fd 3.
func launch(t *testing.T, idx, name string, cfg Config) *child {
	t.Helper()
	dir := t.TempDir()
	cfgPath, err := WriteConfig(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	pluginDir := filepath.Join(dir, "plugins")
	if err := os.Mkdir(pluginDir, 0o700); err != nil {
		t.Fatal(err)
	}
	launcher, err := WriteLauncher(pluginDir, idx, name, cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(launcher); err != nil || fi.Mode()&0o111 == 0 || filepath.Base(launcher) != idx+"-"+name {
		t.Fatalf("launcher %s: %v, %v", launcher, fi, err)
	}

	out := filepath.Join(dir, "out")
	outFile, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	runtimeEnd, pluginEnd := sockpair.Files(t)
	conn, err := net.FileConn(runtimeEnd)
	runtimeEnd.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{
		Path:       launcher,
		Args:       []string{launcher},
		Env:        []string{EnvPluginName + "=" + name, EnvPluginIdx + "=" + idx, EnvPluginSocket + "=3"},
		ExtraFiles: []*os.File{pluginEnd},
		Stdout:     outFile,
		Stderr:     outFile,
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	c := &child{cmd: cmd, exited: watch(t, cmd), out: out}
	c.rt = newFakeRuntime(t, conn, nil)
	return c
}

// waitRegistered is fakeRuntime.waitRegistered that gives up at once if the
// child dies first.
func (c *child) waitRegistered(t *testing.T) *api.RegisterPluginRequest {
	t.Helper()
	select {
	case req := <-c.rt.registered:
		return req
	case err := <-c.exited:
		c.exited <- err
		t.Fatalf("plugin exited before registering: %v\n%s", err, c.output())
	case <-time.After(waitTimeout):
		t.Fatalf("no RegisterPlugin\n%s", c.output())
	}
	return nil
}

// exitCode waits for the child to exit and returns its exit code.
func (c *child) exitCode(t *testing.T) int {
	t.Helper()
	err := waitErr(t, c.exited, "plugin process")
	c.exited <- err // for the cleanup
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", err)
	return -1
}

func (c *child) output() string {
	b, _ := os.ReadFile(c.out)
	return string(b)
}

func TestLaunchedPlugin(t *testing.T) {
	path := logPath(t)
	// Name and index in the config differ from the launcher's: a launched
	// plugin must take them from its environment.
	c := launch(t, "10", "e2e", Config{
		Name: "cfgname", Index: "99", Events: "runpodsandbox,createcontainer", LogPath: path,
		Annotations: map[string]string{"launched": "yes"},
	})
	want := &api.RegisterPluginRequest{PluginName: "e2e", PluginIdx: "10", NRIVersion: NRIVersion}
	if got := c.waitRegistered(t); !proto.Equal(got, want) {
		t.Errorf("RegisterPlugin = %v, want %v", got, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	resp, err := c.rt.plugin.Configure(ctx, &api.ConfigureRequest{Config: "conf.d text"})
	if err != nil {
		t.Fatalf("Configure: %v\n%s", err, c.output())
	}
	if got, want := api.EventMask(resp.GetEvents()), api.MaskOf(api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER); got != want {
		t.Errorf("events = 0x%x, want 0x%x", uint32(got), uint32(want))
	}
	cc, err := c.rt.plugin.CreateContainer(ctx, &api.CreateContainerRequest{Pod: &api.PodSandbox{Id: "pod"}, Container: &api.Container{Id: "ctr"}})
	if err != nil || cc.GetAdjust().GetAnnotations()["launched"] != "yes" {
		t.Errorf("CreateContainer = %v, %v", cc, err)
	}
	// The line is on disk as soon as the call has returned.
	if recs := readLog(t, path); Count(recs, "10-e2e", "CreateContainer") != 1 {
		t.Errorf("CreateContainer not logged before its reply: %+v", recs)
	}

	// Shutdown, then close, as a runtime's Stop does.
	if _, err := c.rt.plugin.Shutdown(ctx, &api.ShutdownRequest{Reason: "stop"}); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	c.rt.close()
	if code := c.exitCode(t); code != 0 {
		t.Errorf("exit code %d after Shutdown\n%s", code, c.output())
	}

	recs := readLog(t, path)
	if got := Events(recs, "10-e2e"); !slices.Equal(got, []string{"Configure", "CreateContainer", "Shutdown"}) {
		t.Fatalf("events = %v", got)
	}
	for _, r := range recs {
		// The launcher execs, so the plugin has the PID the runtime started.
		if r.PID != c.cmd.Process.Pid || r.Plugin != "e2e" {
			t.Errorf("record %+v: want pid %d, plugin e2e", r, c.cmd.Process.Pid)
		}
	}
	if recs[0].Config != "conf.d text" || recs[2].Reason != "stop" {
		t.Errorf("records = %+v", recs)
	}
}

func TestLaunchedPluginExit(t *testing.T) {
	path := logPath(t)
	c := launch(t, "20", "dies", Config{LogPath: path, Behaviours: map[string]Behaviour{
		"StopContainer": {Exit: 7},
	}})
	c.waitRegistered(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := c.rt.plugin.StopContainer(ctx, &api.StopContainerRequest{Container: &api.Container{Id: "c"}}); err == nil {
		t.Error("StopContainer succeeded on a plugin that exits in it")
	}
	if code := c.exitCode(t); code != 7 {
		t.Errorf("exit code %d, want 7\n%s", code, c.output())
	}
	if r := Find(readLog(t, path), "20-dies", "StopContainer"); len(r) != 1 || r[0].Container != "c" {
		t.Errorf("StopContainer records = %+v", r)
	}
}

// TestStartExternal runs an external plugin that dials the runtime's socket.
func TestStartExternal(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "nri.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cfg := Config{Name: "ext", Index: "50", SocketPath: sock}
	cmd, err := StartExternal(ctx, cfg, filepath.Join(dir, "ext.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, exited: watch(t, cmd), out: filepath.Join(dir, "ext.json.out")}

	l.(*net.UnixListener).SetDeadline(time.Now().Add(waitTimeout))
	conn, err := l.Accept()
	if err != nil {
		t.Fatalf("accept: %v\n%s", err, c.output())
	}
	c.rt = newFakeRuntime(t, conn, nil)
	want := &api.RegisterPluginRequest{PluginName: "ext", PluginIdx: "50", NRIVersion: NRIVersion}
	if got := c.waitRegistered(t); !proto.Equal(got, want) {
		t.Errorf("RegisterPlugin = %v, want %v", got, want)
	}
	// The runtime going away is a clean end for the plugin.
	c.rt.close()
	if code := c.exitCode(t); code != 0 {
		t.Errorf("exit code %d\n%s", code, c.output())
	}
}

func TestStartExternalNeedsSocket(t *testing.T) {
	if _, err := StartExternal(context.Background(), Config{Name: "x"}, filepath.Join(t.TempDir(), "x.json")); !errors.Is(err, ErrConfig) {
		t.Errorf("StartExternal without socket_path = %v, want ErrConfig", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b":       `'/a/b'`,
		"/it's here": `'/it'\''s here'`,
		"":           `''`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
