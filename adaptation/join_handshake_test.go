// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

func TestOrderingEqualIndices(t *testing.T) {
	e := newEnv(t)
	e.preinstall("50", "zeta", testplugin.Config{})
	e.preinstall("50", "alpha", testplugin.Config{})
	e.preinstall("05", "last-name-first-index", testplugin.Config{})
	e.start()
	e.external("50", "beta", testplugin.Config{})
	want := []string{"05-last-name-first-index", "50-alpha", "50-beta", "50-zeta"}
	e.waitPlugins(want...)
	if err := e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("po")}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range testplugin.Find(e.records(), "", "RunPodSandbox") {
		order = append(order, r.ID())
	}
	if !equal(order, want) {
		t.Fatalf("RunPodSandbox call order %v, want %v", order, want)
	}
}

func TestPhaseTimeouts(t *testing.T) {
	for _, phase := range []struct{ key, logged string }{
		{testplugin.KeyRegister, "register"},
		{testplugin.KeyConfigure, "configure"},
		{testplugin.KeySynchronize, "synchronize"},
	} {
		t.Run(phase.logged, func(t *testing.T) {
			e := newEnv(t,
				adaptation.WithRegistrationTimeout(testRequestTimeout),
				adaptation.WithRequestTimeout(testRequestTimeout),
				adaptation.WithSyncTimeout(testRequestTimeout))
			e.preinstall("10", "stuck", testplugin.Config{
				Behaviours: map[string]testplugin.Behaviour{phase.key: {Hang: true}},
			})
			e.preinstall("20", "fine", testplugin.Config{})
			e.start() // returns once both joined or were dropped
			if got := pluginIDs(e.a); !equal(got, []string{"20-fine"}) {
				t.Fatalf("active plugins %v, want only 20-fine", got)
			}
			if len(e.logged(logrus.Fields{"plugin": "10-stuck", "phase": phase.logged})) == 0 {
				e.dumpLog()
				t.Fatalf("no log line naming phase %q", phase.logged)
			}
		})
	}
}

func TestPreinstalledConfigAndBadNames(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "withconf", testplugin.Config{})
	e.preinstall("20", "byname", testplugin.Config{})
	writeFile(t, filepath.Join(e.confDir, "10-withconf.conf"), "indexed config")
	writeFile(t, filepath.Join(e.confDir, "withconf.conf"), "plain config, shadowed")
	writeFile(t, filepath.Join(e.confDir, "byname.conf"), "plain config")
	writeFile(t, filepath.Join(e.pluginDir, "7-badindex"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(e.pluginDir, "noindex"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(e.pluginDir, "30-fails-to-start"), "#!/nonexistent/interpreter\n", 0o755)
	e.start()
	e.waitPlugins("10-withconf", "20-byname")

	configs := map[string]string{}
	for _, r := range testplugin.Find(e.records(), "", "Configure") {
		configs[r.ID()] = r.Config
	}
	if configs["10-withconf"] != "indexed config" || configs["20-byname"] != "plain config" {
		t.Errorf("configs handed to plugins: %q", configs)
	}
	for _, bad := range []string{"7-badindex", "noindex", "30-fails-to-start"} {
		found := false
		for _, entry := range e.hook.AllEntries() {
			if entry.Level == logrus.WarnLevel && strings.Contains(fmt.Sprint(entry.Data), bad) {
				found = true
			}
		}
		if !found {
			e.dumpLog()
			t.Errorf("no warning names skipped plugin %s", bad)
		}
	}
}

func TestExternalConnectionsConcurrent(t *testing.T) {
	e := newEnv(t, adaptation.WithRegistrationTimeout(2*time.Second))
	e.start()
	// One client that never registers must not delay the others.
	e.external("00", "silent", testplugin.Config{
		Behaviours: map[string]testplugin.Behaviour{testplugin.KeyRegister: {Hang: true}},
	})
	var want []string
	for i := 1; i <= 20; i++ {
		name := fmt.Sprintf("p%02d", i)
		e.external(fmt.Sprintf("%02d", i), name, testplugin.Config{})
		want = append(want, fmt.Sprintf("%02d-%s", i, name))
	}
	start := time.Now()
	e.waitPlugins(want...)
	t.Logf("20 plugins joined in %v", time.Since(start))
}

func TestExternalBadIdentityRefused(t *testing.T) {
	e := newEnv(t)
	e.start()
	e.external("1x", "bad", testplugin.Config{})
	e.external("10", "good", testplugin.Config{})
	e.waitPlugins("10-good")
	entry := e.waitLogged(logrus.Fields{"phase": "register"})[0]
	if !strings.Contains(fmt.Sprint(entry.Data["error"]), "1x") {
		t.Errorf("refusal %v does not say which index was bad", entry.Data)
	}
}

func TestSocketSetup(t *testing.T) {
	t.Run("directory 0700 and socket 0600", func(t *testing.T) {
		e := newEnv(t)
		e.start()
		assertMode(t, filepath.Dir(e.socket), 0o700)
		assertMode(t, e.socket, 0o600)
	})
	t.Run("stale socket replaced", func(t *testing.T) {
		e := newEnv(t)
		e.start()
		e.stop()
		e.start() // Start after Stop reuses the path
		e.external("10", "again", testplugin.Config{})
		e.waitPlugins("10-again")
	})
	t.Run("disabled", func(t *testing.T) {
		e := newEnv(t, adaptation.WithDisabledExternalConnections())
		e.start()
		if _, err := os.Stat(e.socket); !os.IsNotExist(err) {
			t.Fatalf("socket exists with connections disabled: %v", err)
		}
	})
}

func TestStopShutsPluginsDown(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "pre", testplugin.Config{})
	e.start()
	e.external("20", "ext", testplugin.Config{})
	e.waitPlugins("10-pre", "20-ext")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := e.a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pre", "ext"} {
		recs := testplugin.Find(e.records(), name, "Shutdown")
		if len(recs) != 1 || recs[0].Reason == "" {
			t.Errorf("%s: Shutdown records %+v, want one with a reason", name, recs)
		}
	}
	if got := pluginIDs(e.a); len(got) != 0 {
		t.Errorf("plugins still active after Stop: %v", got)
	}
}

func TestStopForcedWhenPluginIgnoresShutdown(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "stubborn", testplugin.Config{
		Behaviours: map[string]testplugin.Behaviour{testplugin.KeyShutdown: {Hang: true}},
	})
	e.start()
	e.waitPlugins("10-stubborn")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := e.a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > waitLimit/2 {
		t.Fatalf("Stop took %v with a 500ms context", took)
	}
}

func writeFile(t testing.TB, path, content string, mode ...os.FileMode) {
	t.Helper()
	m := os.FileMode(0o644)
	if len(mode) > 0 {
		m = mode[0]
	}
	if err := os.WriteFile(path, []byte(content), m); err != nil {
		t.Fatal(err)
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode %o, want %o", path, got, want)
	}
}

// TestReplacementByNewInstance: a plugin registering with the index and
// name of a connected one takes its place once synchronized; the old one is
// told why it goes.
func TestReplacementByNewInstance(t *testing.T) {
	e := newEnv(t)
	e.start()
	first := e.external("10", "dup", testplugin.Config{})
	e.waitInstance("10-dup", first.Process.Pid)
	second := e.external("10", "dup", testplugin.Config{})
	e.waitInstance("10-dup", second.Process.Pid)
	if got := pluginIDs(e.a); !equal(got, []string{"10-dup"}) {
		t.Fatalf("active plugins %v, want one 10-dup", got)
	}
	e.waitLogged(logrus.Fields{"plugin": "10-dup", "reason": "replaced"})
	var reasons []string
	for _, r := range testplugin.Find(e.records(), "dup", "Shutdown") {
		if r.PID == first.Process.Pid {
			reasons = append(reasons, r.Reason)
		}
	}
	if len(reasons) != 1 {
		t.Fatalf("replaced instance got %d Shutdowns, want 1", len(reasons))
	}
	if reasons[0] != "replaced" {
		t.Fatalf("replaced instance's Shutdown reason %q, want \"replaced\"", reasons[0])
	}
}

// TestSyncHangBoundsEvents: a plugin that hangs in Synchronize holds events
// back for at most its sync deadline, and other plugins still register.
func TestSyncHangBoundsEvents(t *testing.T) {
	const syncTimeout = 700 * time.Millisecond
	e := newEnv(t, adaptation.WithSyncTimeout(syncTimeout))
	e.start()
	e.external("10", "hangs", testplugin.Config{
		Behaviours: map[string]testplugin.Behaviour{testplugin.KeySynchronize: {Hang: true}},
	})
	e.waitLogged(logrus.Fields{"plugin": "10-hangs"}) // registered, about to synchronize
	e.external("20", "fine", testplugin.Config{})
	start := time.Now()
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("pe")}))
	if held := time.Since(start); held > syncTimeout+waitLimit/4 {
		t.Fatalf("RunPodSandbox held back %v by a hanging Synchronize (deadline %v)", held, syncTimeout)
	}
	e.waitPlugins("20-fine")
	e.waitLogged(logrus.Fields{"plugin": "10-hangs", "phase": "synchronize"})
}
