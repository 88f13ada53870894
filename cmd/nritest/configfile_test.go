// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigRehearsesTheRuntimesTable: --config runs under the runtime's
// NRI table: its plugin_settings show in PLUGINS, and its readiness gate
// holds the pod in AwaitPlugins before RunPodSandbox, failing it for a
// plugin its annotation requires and that is absent. A key nrikit does not
// read is a usage error naming it; the page's example is the one tested.
func TestConfigRehearsesTheRuntimesTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	gated := write("gated.toml", "[plugin_readiness]\n  wait = \"300ms\"\n[plugin_settings.\"20-annotator\"]\n  request_timeout = \"7s\"\n")
	r := runCmd(t, "--config", gated, "--pod-annotation", "required-plugins.noderesource.dev=[absent]")
	for _, want := range []string{
		"20-annotator  pre-installed", "7s (operator)",
		"gate    wait 300ms, on_timeout fail, setup_reserve 2s",
		"AwaitPlugins held the pod and failed it, before RunPodSandbox: nrikit: required plugins not ready: pod default/demo",
		`"absent" never connected`,
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("--config with a gate: report lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != exitFailed {
		t.Errorf("--config with a gate the pod fails: exit %d, want %d", r.code, exitFailed)
	}

	misspelt := write("misspelt.toml", "[plugins.\"io.containerd.nri.v1.nri\".plugin_readiness]\n  wiat = \"1s\"\n")
	r = runCmd(t, "--config", misspelt)
	if r.code != exitUsage || !strings.Contains(r.stderr, "key plugin_readiness.wiat is not one nrikit reads") {
		t.Errorf("a misspelt key: exit %d, stderr %q; want a usage error naming it", r.code, r.stderr)
	}

	page, err := os.ReadFile(docPage)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "```toml\n"+rehearsedConfig+"```\n") {
		t.Errorf("%s does not show the config its sample rehearses:\n%s", docPage, rehearsedConfig)
	}
}
