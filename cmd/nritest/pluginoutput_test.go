// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestCrashedPluginOutputShown: a pre-installed plugin that panics in
// CreateContainer has its panic message, its stack and its own lines shown
// under the plugin changes, in the text and the JSON; -v shows all the lines
// nrikit kept and logs them as they come, named by plugin and stream.
func TestCrashedPluginOutputShown(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "20", Name: "panics", Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Panic: "boom in create"}}},
	)
	args := []string{"--plugin-path", pluginDir, "--registration-timeout", "1m"}

	text := runCmd(t, args...)
	if text.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", text.code, text.stdout, text.stderr)
	}
	shown := outputSection(text.stdout, "20-panics")
	for _, want := range []string{"stderr| panic: boom in create", "stderr| goroutine ", "internal/testplugin.(*Handler).CreateContainer"} {
		if !strings.Contains(shown, want) {
			t.Errorf("no %q under the plugin changes:\n%s", want, text.stdout)
		}
	}
	if n := strings.Count(shown, "\n  std"); n > outputShown {
		t.Errorf("%d output lines shown without -v, want at most %d", n, outputShown)
	}

	rep := parseJSON(t, runCmd(t, append(args, "--json")...).stdout)
	var panicked bool
	for _, c := range rep.PluginChanges {
		for _, l := range c.Output {
			panicked = panicked || c.Plugin == "20-panics" && l.Stream == "stderr" && l.Text == "panic: boom in create"
		}
	}
	if !panicked {
		t.Errorf("JSON plugin_changes have no panic line: %+v", rep.PluginChanges)
	}

	verbose := runCmd(t, append(args, "-v")...)
	all := outputSection(verbose.stdout, "20-panics")
	if strings.Count(all, "\n  std") < strings.Count(shown, "\n  std") || !strings.Contains(all, "stdout| 20-panics: about to panic") {
		t.Errorf("-v shows less than the default:\n%s", all)
	}
	logged := lineWith(verbose.stderr, "panic: boom in create")
	if !strings.Contains(logged, "plugin=20-panics") || !strings.Contains(logged, "stream=stderr") {
		t.Errorf("-v: the panic is not logged with plugin and stream: %q\n%s", logged, verbose.stderr)
	}
}

// outputSection is the OUTPUT part of a report for plugin, "" if none.
func outputSection(report, plugin string) string {
	_, after, ok := strings.Cut(report, "OUTPUT of "+plugin+" ")
	if !ok {
		return ""
	}
	section, _, _ := strings.Cut(after, "\n\n")
	return section
}
