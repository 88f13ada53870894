// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// changeLog collects what WithPluginChanges reports.
type changeLog struct {
	mu      sync.Mutex
	changes []adaptation.PluginChange
	notify  chan struct{}
}

func newChangeLog() *changeLog { return &changeLog{notify: make(chan struct{})} }

func (l *changeLog) add(c adaptation.PluginChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changes = append(l.changes, c)
	close(l.notify)
	l.notify = make(chan struct{})
}

func (l *changeLog) all() []adaptation.PluginChange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.changes)
}

// of lists one plugin's changes as "change phase: reason".
func (l *changeLog) of(plugin string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.changes {
		if c.Plugin == plugin {
			out = append(out, string(c.Change)+" "+c.Phase+": "+c.Reason)
		}
	}
	return out
}

// waitFor waits until plugin has n changes.
func (l *changeLog) waitFor(t *testing.T, plugin string, n int) []string {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		l.mu.Lock()
		changed := l.notify
		l.mu.Unlock()
		if got := l.of(plugin); len(got) >= n {
			return got
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%s: %d changes, want %d: %v", plugin, len(l.of(plugin)), n, l.of(plugin))
		}
	}
}

// waitForChange waits for the first change of kind, of any plugin.
func (l *changeLog) waitForChange(t *testing.T, kind adaptation.ChangeKind) adaptation.PluginChange {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		l.mu.Lock()
		changed := l.notify
		i := slices.IndexFunc(l.changes, func(c adaptation.PluginChange) bool { return c.Change == kind })
		var found adaptation.PluginChange
		if i >= 0 {
			found = l.changes[i]
		}
		l.mu.Unlock()
		if i >= 0 {
			return found
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no %s change: %v", kind, l.all())
		}
	}
}

// expectChanges checks a plugin's changes, each against a prefix and a
// fragment of its reason.
func expectChanges(t *testing.T, l *changeLog, plugin string, want ...[2]string) {
	t.Helper()
	got := l.waitFor(t, plugin, len(want))
	if len(got) != len(want) {
		t.Errorf("%s: changes %q, want %d", plugin, got, len(want))
		return
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w[0]) || !strings.Contains(got[i], w[1]) {
			t.Errorf("%s: change %d is %q, want %q ... %q", plugin, i, got[i], w[0], w[1])
		}
	}
}

// Every plugin that joins, leaves, fails to join or is skipped is reported,
// with what it was doing and why; a crashed process with its exit status.
func TestPluginChangesReported(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	e.preinstall("10", "good", testplugin.Config{})
	e.preinstall("20", "crashes", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Exit: 3}}})
	e.preinstall("30", "noregister", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeyRegister: {Exit: 7}}})
	writeFile(t, filepath.Join(e.pluginDir, "noindex"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(e.pluginDir, "40-fails-to-start"), "#!/nonexistent/interpreter\n", 0o755)
	e.start()
	e.external("50", "ext", testplugin.Config{})
	e.waitPlugins("10-good", "20-crashes", "50-ext")

	pod := testPod("pc")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("pc-c1", pod)})
	must(t, err)
	e.external("50", "ext", testplugin.Config{}) // replaces the first instance
	changes.waitFor(t, "50-ext", 3)
	e.stop()

	expectChanges(t, changes, "10-good", [2]string{"joined :", ""}, [2]string{"left :", "runtime shutting down"})
	expectChanges(t, changes, "20-crashes", [2]string{"joined :", ""},
		[2]string{"left CreateContainer: lost during CreateContainer", "exit status 3"})
	expectChanges(t, changes, "30-noregister", [2]string{"failed register:", "exit status 7"})
	expectChanges(t, changes, "noindex", [2]string{"skipped :", "between index and name"})
	expectChanges(t, changes, "40-fails-to-start", [2]string{"failed start:", "is the interpreter on its #! line missing?"})
	expectChanges(t, changes, "50-ext", [2]string{"joined :", ""}, [2]string{"joined :", ""},
		[2]string{"left :", "replaced"}, [2]string{"left :", "runtime shutting down"})
	for _, c := range changes.all() {
		if c.PID == 0 && c.Plugin != "noindex" && c.Plugin != "40-fails-to-start" {
			t.Errorf("%s %s: no pid", c.Plugin, c.Change)
		}
	}
}
