// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/interoptest"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestExternalPluginCannotTakeTheRuntimesPluginIDs: a local peer that
// registers under the index and name of a pre-installed or builtin plugin
// is refused at registration; the runtime's own plugin stays and keeps
// getting events. An external plugin still replaces an external one.
func TestExternalPluginCannotTakeTheRuntimesPluginIDs(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithBuiltinPlugins(
		adaptation.BuiltinPlugin{Index: "05", Name: "inproc", Handler: &memCapper{name: "inproc"}}))
	e.preinstall("10", "policy", testplugin.Config{})
	e.start()
	e.waitPlugins("05-inproc", "10-policy")

	for _, id := range []struct{ idx, name, holder string }{{"10", "policy", "pre-installed"}, {"05", "inproc", "builtin"}} {
		e.external(id.idx, id.name, testplugin.Config{})
		got := changes.waitFor(t, id.idx+"-"+id.name, 2)
		last := got[len(got)-1]
		if !strings.HasPrefix(last, "failed register: ") || !strings.Contains(last, adaptation.ErrPluginIDTaken.Error()) ||
			!strings.Contains(last, id.holder+" plugin "+id.idx+"-"+id.name+", active") {
			t.Errorf("impostor of %s-%s: %q, want a refused registration naming the %s holder", id.idx, id.name, got, id.holder)
		}
	}
	e.external("20", "ext", testplugin.Config{})
	e.waitPlugins("05-inproc", "10-policy", "20-ext")
	e.external("20", "ext", testplugin.Config{})
	changes.waitFor(t, "20-ext", 3) // joined, joined, left (replaced)

	pod := testPod("p")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	if got := testplugin.Find(e.records(), "policy", "RunPodSandbox"); len(got) != 1 {
		t.Errorf("the pre-installed plugin got %d RunPodSandbox, want 1: it must still be the one connected", len(got))
	}
	e.waitPlugins("05-inproc", "10-policy", "20-ext")
}

// TestSyncTimeoutBacksOff: events wait while a plugin synchronizes, so a
// plugin whose Synchronize timed out may not register again at once under
// the same index and name (its back-off); others still may.
func TestSyncTimeoutBacksOff(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithSyncTimeout(300*time.Millisecond), adaptation.WithPluginChanges(changes.add))
	e.start()
	hang := testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeySynchronize: {Hang: true}}}
	e.external("10", "slowsync", hang)
	if got := changes.waitFor(t, "10-slowsync", 1); !strings.HasPrefix(got[0], "failed synchronize: ") {
		t.Fatalf("first instance: %q, want dropped during synchronize", got)
	}
	e.external("10", "slowsync", testplugin.Config{})
	got := changes.waitFor(t, "10-slowsync", 2)
	if !strings.HasPrefix(got[1], "failed register: ") || !strings.Contains(got[1], "refused until its back-off ends") {
		t.Fatalf("second instance: %q, want refused at registration for its back-off", got)
	}
	e.external("20", "other", testplugin.Config{})
	e.waitPlugins("20-other")
}

// TestRefusedStubHearsWhy: a reference-stub plugin refused for an ID the
// runtime's own plugin holds gets the reason in its RegisterPlugin reply
// and exits, instead of waiting for ever on a connection cut after a reply
// that said it registered.
func TestRefusedStubHearsWhy(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "policy", testplugin.Config{})
	e.start()
	e.waitPlugins("10-policy")
	cmd := exec.Command(interoptest.Binary(t, "modern"), "-idx", "10", "-name", "policy", "-socket", e.socket, "-log", e.refLog())
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "NRI_") })
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(waitLimit):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("the refused stub did not exit; its output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), adaptation.ErrPluginIDTaken.Error()) {
		t.Errorf("the stub's output does not give the reason:\n%s", out.String())
	}
	e.waitPlugins("10-policy")
}

// lockedBuffer collects a process's output, written from os/exec's copier.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
