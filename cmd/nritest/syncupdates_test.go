// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestSyncUpdates: updates that plugins return from Synchronize are recorded
// and shown like unsolicited ones: a pre-installed plugin's at start-up (no
// container exists yet), and those of an external plugin that joins while
// the containers run.
func TestSyncUpdates(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	sock := filepath.Join(dir, "nri.sock")
	pluginDir := installTestPlugins(t, dir, testplugin.Config{Index: "10", Name: "early",
		SyncUpdates: []testplugin.Update{{ContainerID: "ctr-1", CPUShares: 256}}})
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	lingering := stderr.watch("nritest: lingering")
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	finished := make(chan result, 1)
	go func() {
		// -v: nrikit's "plugin connected" tells when the late plugin has joined.
		finished <- runCtx(ctx, stderr, "--json", "-v", "--no-owners", "--plugin-path", pluginDir, "--socket", sock, "--linger", "1h")
	}()
	select {
	case <-lingering:
	case r := <-finished:
		t.Fatalf("run ended without lingering: exit %d\n%s", r.code, r.stderr)
	}

	joined := stderr.watch("kind=external plugin=50-late")
	late := testplugin.Config{Index: "50", Name: "late", SocketPath: sock, SyncUpdates: []testplugin.Update{
		{ContainerID: "ctr-1", CPUShares: 1024},
		{ContainerID: "ctr-9", CPUShares: 2048, IgnoreFailure: true},
	}}
	pctx, pcancel := context.WithCancel(context.Background())
	defer pcancel()
	cmd, err := testplugin.StartExternal(pctx, late, filepath.Join(dir, "late.json"))
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-joined:
	case r := <-finished:
		t.Fatalf("run ended before the late plugin joined: exit %d\n%s", r.code, r.stderr)
	}
	cancel() // Ctrl-C ends the linger; the teardown still runs
	r := <-finished
	select {
	case err := <-exited: // the runtime's Stop ends the plugin
		if err != nil {
			t.Errorf("late plugin: %v", err)
		}
	case <-time.After(testLimit):
		pcancel()
		<-exited
		t.Error("late plugin did not exit after the runtime stopped")
	}
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	rep := parseJSON(t, r.stdout)
	want := []SyncUpdate{
		{During: phaseStartUp, ContainerID: "ctr-1", Changes: []string{"cpu.shares=256"}, Result: updateFailed, Reason: "no such container"},
		{During: phaseLinger, ContainerID: "ctr-1", Container: "app", Changes: []string{"cpu.shares=1024"}, Result: updateAccepted},
		{During: phaseLinger, ContainerID: "ctr-9", Changes: []string{"cpu.shares=2048"}, IgnoreFailure: true, Result: updateFailed, Reason: "no such container"},
	}
	if !slices.EqualFunc(rep.SyncUpdates, want, sameUpdate) {
		t.Errorf("sync updates:\n%+v\nwant\n%+v", rep.SyncUpdates, want)
	}
	if len(rep.Unsolicited) != 0 {
		t.Errorf("sync updates shown as unsolicited: %+v", rep.Unsolicited)
	}

	var text bytes.Buffer
	if err := rep.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nSYNC UPDATES (",
		"\nDURING    CONTAINER    RESULT                     CHANGES\n",
		"start-up  ctr-1        FAILED: no such container  cpu.shares=256\n",
		"linger    ctr-1 (app)  accepted                   cpu.shares=1024\n",
		"linger    ctr-9        FAILED: no such container  cpu.shares=2048 (ignore_failure)\n",
		"sync updates: 3 (2 failed)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "UNSOLICITED") {
		t.Errorf("text report shows unsolicited updates:\n%s", text.String())
	}
}
