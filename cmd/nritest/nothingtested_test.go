// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// notExecutable writes a plugin file without its execute bit.
func notExecutable(t *testing.T, pluginDir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(pluginDir, "40-notexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPluginPathNothingJoined: a --plugin-path run in which no plugin from
// that path joined tested nothing: it fails and says why, in both modes.
func TestPluginPathNothingJoined(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	onlyNotExec := installTestPlugins(t, t.TempDir())
	notExecutable(t, onlyNotExec)
	for _, c := range []struct {
		dir, why string
		skipped  int
	}{
		{empty, "it holds no plugin file", 0},
		{onlyNotExec, "1 file(s) skipped (40-notexec: not executable (mode 0644))", 1},
	} {
		for _, mode := range [][]string{nil, {"--conformance"}} {
			args := append([]string{"--plugin-path", c.dir}, mode...)
			want := "no plugin from --plugin-path " + c.dir + " joined: " + c.why
			r := runCmd(t, args...)
			if r.code != exitFailed || !strings.Contains(r.stdout, "RESULT: FAILED") || !strings.Contains(r.stdout, "STOPPED EARLY: "+want) {
				t.Errorf("%q: exit %d, want 1 with %q\n%s\n%s", args, r.code, want, r.stdout, r.stderr)
			}
			result := lineWith(r.stdout, "RESULT: ")
			if hasSkipped := strings.Contains(result, "skipped files: 1 (40-notexec: not executable"); hasSkipped != (c.skipped == 1) {
				t.Errorf("%q: RESULT line %q; skipped files counted: %v, want %v", args, result, hasSkipped, c.skipped == 1)
			}
			if !strings.Contains(r.stderr, "nritest: "+want) {
				t.Errorf("%q: stderr does not say why:\n%s", args, r.stderr)
			}
			r = runCmd(t, append(args, "--json")...)
			var stopped string
			var skipped []string
			if mode == nil {
				rep := parseJSON(t, r.stdout)
				stopped, skipped = rep.Stopped, rep.SkippedFiles
			} else {
				rep := parseConformance(t, r.stdout)
				stopped, skipped = rep.Stopped, rep.SkippedFiles
			}
			if r.code != exitFailed || stopped != want || len(skipped) != c.skipped {
				t.Errorf("%q --json: exit %d, stopped %q, skipped files %q", args, r.code, stopped, skipped)
			}
		}
	}
}

// TestSkippedFilesCounted: a file skipped next to a plugin that joined is no
// failure, but the RESULT line counts it with its reason.
func TestSkippedFilesCounted(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(), testplugin.Config{Index: "10", Name: "ok"})
	notExecutable(t, pluginDir)
	r := runCmd(t, "--plugin-path", pluginDir)
	want := "; skipped files: 1 (40-notexec: not executable (mode 0644))"
	if result := lineWith(r.stdout, "RESULT: "); r.code != exitOK || !strings.HasPrefix(result, "RESULT: ok") || !strings.HasSuffix(result, want) {
		t.Errorf("exit %d, RESULT line %q; want ok ending %q\n%s", r.code, result, want, r.stderr)
	}
}

// TestReportWhenRuntimeCannotStart: --json prints a report, with what
// stopped the run, even when the runtime could not start.
func TestReportWhenRuntimeCannotStart(t *testing.T) {
	t.Parallel()
	file := filepath.Join(shortTempDir(t), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(file, "nri.sock") // under a file: cannot listen there
	for _, mode := range [][]string{nil, {"--conformance"}} {
		args := append([]string{"--json", "--plugin-path", "", "--socket", sock}, mode...)
		r := runCmd(t, args...)
		var stopped string
		if mode == nil {
			stopped = parseJSON(t, r.stdout).Stopped
		} else {
			stopped = parseConformance(t, r.stdout).Stopped
		}
		if r.code != exitFailed || !strings.HasPrefix(stopped, "starting the runtime: ") || !strings.Contains(stopped, file) {
			t.Errorf("%q: exit %d, stopped %q; want 1 and why the runtime did not start\n%s", args, r.code, stopped, r.stderr)
		}
		text := runCmd(t, args[1:]...)
		if !strings.Contains(text.stdout, "STOPPED EARLY: "+stopped+"\n") || !strings.HasSuffix(text.stderr, "nritest: "+stopped+"\n") {
			t.Errorf("%q: the text report does not end with %q:\n%s\n%s", args[1:], stopped, text.stdout, text.stderr)
		}
	}
}

// TestConformanceNotRunAfterDrop: the cases after the one in which a
// plugin was dropped are not run for it, not passed.
func TestConformanceNotRunAfterDrop(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "crashes", Behaviours: map[string]testplugin.Behaviour{"UpdateContainer": {Exit: 3}}})
	r := runCmd(t, "--conformance", "--json", "--plugin-path", pluginDir)
	if r.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	p := resultOf(t, parseConformance(t, r.stdout), "10-crashes")
	step := 0
	for _, s := range parseConformance(t, r.stdout).Cases {
		for _, e := range s.Steps {
			if e.Event == "UpdateContainer" && step == 0 {
				step = e.Seq
			}
		}
	}
	after := map[string]bool{caseOtherFails: true, caseRestart: true, caseStopNoRemove: true, caseRemoveNoStop: true}
	for _, c := range p.Cases {
		switch {
		case after[c.Case] && (c.Result != verdictNotRun || c.DroppedAtStep != step):
			t.Errorf("%s: %s at step %d, want not run, dropped at step %d", c.Case, c.Result, c.DroppedAtStep, step)
		case !after[c.Case] && c.Result == verdictNotRun:
			t.Errorf("%s: not run, though it came before the drop", c.Case)
		}
	}
	if caseOf(p, caseUpdates).Result != verdictFail {
		t.Errorf("updates: %s, want FAIL (the plugin crashed there)", caseOf(p, caseUpdates).Result)
	}
	text := runCmd(t, "--conformance", "--plugin-path", pluginDir)
	want := regexp.MustCompile(`\n  restart +not run \(dropped at step ` + strconv.Itoa(step) + `\)`)
	if !want.MatchString(text.stdout) {
		t.Errorf("text report lacks %s:\n%s", want, text.stdout)
	}
}

// TestProgressLines: the wait for the --plugin-path plugins to register
// gets a line on stderr, and so does each plugin as it joins, is refused or
// is skipped; stdout holds the report alone.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "ok"},
		testplugin.Config{Index: "20", Name: "noregister", Behaviours: map[string]testplugin.Behaviour{testplugin.KeyRegister: {Exit: 7}}},
	)
	notExecutable(t, pluginDir)
	r := runCmd(t, "--plugin-path", pluginDir, "--registration-timeout", "3s")
	for _, want := range []string{
		"nritest: starting the plugins in " + pluginDir + " (each has 3s to register, see --registration-timeout)",
		"nritest: 10-ok joined (pre-installed)",
		"nritest: 20-noregister (pre-installed) failed to join during register: ",
		"nritest: 40-notexec skipped: not executable (mode 0644)",
	} {
		if lineWith(r.stderr, want) == "" {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "nritest: 10-ok joined") || !strings.HasPrefix(r.stdout, "nritest: simulated runtime") {
		t.Errorf("progress lines on stdout:\n%s", r.stdout)
	}
}
