// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestJoinTimeouts: a pre-installed plugin stuck in a phase of joining is
// dropped after the phase's timeout from the command line, and the run goes
// on with the others; the plugin is reported, and the run fails.
func TestJoinTimeouts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flag, stuckIn, phase, timeout string }{
		{"--sync-timeout", testplugin.KeySynchronize, "synchronize", "after 1s"},
		{"--registration-timeout", testplugin.KeyRegister, "register", "within 1s"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			t.Parallel()
			pluginDir := installTestPlugins(t, t.TempDir(),
				testplugin.Config{Index: "10", Name: "ok"},
				testplugin.Config{Index: "20", Name: "stuck", Behaviours: map[string]testplugin.Behaviour{c.stuckIn: {Hang: true}}},
			)
			r := runCmd(t, "--json", "--no-owners", "--plugin-path", pluginDir, c.flag, "1s")
			if r.code != exitFailed {
				t.Fatalf("exit %d, want 1: a plugin did not join\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			rep := parseJSON(t, r.stdout)
			if len(rep.PluginChanges) != 1 || rep.PluginChanges[0].Plugin != "20-stuck" || rep.PluginChanges[0].Phase != c.phase {
				t.Errorf("plugin changes %+v, want 20-stuck failed during %s", rep.PluginChanges, c.phase)
			}
			if ids := pluginIDs(rep.Active); !slices.Equal(ids, []string{"10-ok"}) {
				t.Errorf("plugins = %v, want [10-ok]", ids)
			}
			checkLifecycle(t, jsonRows(rep), []string{"10-ok"})
			// The warning names the plugin, the phase and the flag's timeout.
			var warning string
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.Contains(l, "plugin=20-stuck") && strings.Contains(l, "phase="+c.phase) {
					warning = l
				}
			}
			if !strings.Contains(warning, "nrikit: plugin dropped during "+c.phase) || !strings.Contains(warning, c.timeout) {
				t.Errorf("no warning that 20-stuck was dropped during %s %s:\n%s", c.phase, c.timeout, r.stderr)
			}
			// The text report and the progress line name the flag.
			text := runCmd(t, "--no-owners", "--plugin-path", pluginDir, c.flag, "1s")
			hint := "(the limit is " + c.flag + ")"
			row := lineWith(text.stdout, "20-stuck  pre-installed")
			progress := lineWith(text.stderr, "nritest: 20-stuck (pre-installed) failed to join during "+c.phase)
			if !strings.HasSuffix(row, hint) || !strings.HasSuffix(progress, hint) {
				t.Errorf("the reason does not end with %q:\nrow: %s\nprogress: %s", hint, row, progress)
			}
		})
	}
}
