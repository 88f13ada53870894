// SPDX-License-Identifier: Apache-2.0

//go:build linux

package adaptation_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// startWithin starts the runtime and fails the test if Start has not
// returned within waitLimit: whatever is in the plugin or config directory,
// Start must not hang (it holds the adaptation's lock, so Stop could not
// step in either).
func (e *env) startWithin() {
	e.t.Helper()
	done := make(chan error, 1)
	go func() { done <- e.a.Start(context.Background()) }()
	select {
	case err := <-done:
		if err != nil {
			e.t.Fatalf("Start: %v", err)
		}
	case <-time.After(waitLimit):
		e.t.Fatalf("Start did not return within %v", waitLimit)
	}
}

// A config drop-in that is not a readable regular UTF-8 file of at most
// 1 MiB skips its plugin, with a warning and a PluginChange that name the
// config file and say what is wrong with it; Start returns promptly and the
// other plugins run. A named pipe used to hang Start for ever, and a
// symlink to /dev/zero to exhaust the runtime's memory.
func TestPreinstalledBadConfigSkipped(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	conf := func(name string) string { return filepath.Join(e.confDir, name+".conf") }
	bad := map[string]string{ // plugin -> its skip reason
		"10-fifo":   `config file "` + conf("10-fifo") + `": not a regular file (named pipe)`,
		"11-zero":   `config file "` + conf("11-zero") + `": not a regular file (character device)`,
		"12-big":    `config file "` + conf("12-big") + `": file too large: 1048577 bytes (1.0 MiB), more than the limit of 1 MiB`,
		"13-latin1": `config file "` + conf("13-latin1") + `" is not valid UTF-8 (byte 3), which NRI requires of a config`,
	}
	for id := range bad {
		idx, name, _ := strings.Cut(id, "-")
		e.preinstall(idx, name, testplugin.Config{})
	}
	if err := syscall.Mkfifo(conf("10-fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlinkOrFail(t, "/dev/zero", conf("11-zero"))
	writeFile(t, conf("12-big"), strings.Repeat("x", 1<<20+1))
	writeFile(t, conf("13-latin1"), "caf\xe9=1\n")
	e.preinstall("20", "fine", testplugin.Config{})
	writeFile(t, conf("20-fine"), strings.Repeat("y", 1<<20)) // the limit itself is fine

	e.startWithin()
	e.waitPlugins("20-fine")
	for id, reason := range bad {
		expectChanges(t, changes, id, [2]string{"skipped :", reason})
		entries := e.logged(logrus.Fields{"path": filepath.Join(e.pluginDir, id), "reason": reason})
		if len(entries) != 1 || entries[0].Level != logrus.WarnLevel || entries[0].Message != "nrikit: pre-installed plugin skipped" {
			e.dumpLog()
			t.Errorf("%s: log lines %v, want one warning that it was skipped, with the reason", id, entries)
		}
	}
	if recs := testplugin.Find(e.records(), "fine", "Configure"); len(recs) != 1 || len(recs[0].Config) != 1<<20 {
		t.Errorf("20-fine was not configured with its 1 MiB config")
	}
}

// A file name that breaks the rules external plugins' names follow
// ([a-zA-Z0-9_.+-]) is not launched: a newline in a name would forge lines
// in the runtime's log.
func TestPreinstalledBadNameSkipped(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	e.preinstall("31", "a\nb", testplugin.Config{})
	e.preinstall("32", "a b", testplugin.Config{})
	e.preinstall("40", "fine", testplugin.Config{})
	e.startWithin()
	e.waitPlugins("40-fine")
	expectChanges(t, changes, "31-a\nb", [2]string{"skipped :",
		`plugin file name "31-a\nb": nrikit: invalid plugin name "a\nb": character '\n' at byte 1 is not one of [a-zA-Z0-9_.+-]`})
	expectChanges(t, changes, "32-a b", [2]string{"skipped :", `invalid plugin name "a b": character ' ' at byte 1`})
	if recs := testplugin.Find(e.records(), "", "Configure"); len(recs) != 1 {
		t.Errorf("%d plugins configured, want only 40-fine", len(recs))
	}
}
