// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// Sample annotator adjustments, shown in the CreateContainer rows.
const (
	sampleAnnotation = "nritest.nrikit.io/annotated"
	sampleEnv        = "NRITEST_ANNOTATED"
)

// samplePlugins are the bundled plugins of the default run. They are this
// very binary, re-executed in plugin mode (testplugin.MaybeRunChild).
func samplePlugins() []testplugin.Config {
	return []testplugin.Config{
		{Index: "10", Name: "logger"}, // every event, changes nothing
		{
			Index:       "20",
			Name:        "annotator",
			Annotations: map[string]string{sampleAnnotation: "true"},
			Env:         map[string]string{sampleEnv: "true"},
		},
		{Index: "30", Name: "legacy", Legacy: true}, // built before NRI v0.12
	}
}

// sampleAbout describes the sample plugins in the report.
var sampleAbout = map[string]string{
	"10-logger":    "sample: takes every event, changes nothing",
	"20-annotator": "sample: adjusts CreateContainer (annotation, env)",
	"30-legacy":    "sample: built before NRI v0.12, takes 9 events only via StateChange",
}

// installSamples writes a temporary plugin directory holding a launcher and
// a config for every sample plugin, and returns it with its cleanup.
func installSamples() (pluginDir string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "nritest-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	pluginDir = filepath.Join(dir, "plugins")
	if err := installIn(dir, pluginDir); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("installing the sample plugins: %w", err)
	}
	return pluginDir, cleanup, nil
}

func installIn(dir, pluginDir string) error {
	if err := os.Mkdir(pluginDir, 0o700); err != nil {
		return err
	}
	for _, cfg := range samplePlugins() {
		path, err := testplugin.WriteConfig(dir, cfg)
		if err != nil {
			return err
		}
		if _, err := testplugin.WriteLauncher(pluginDir, cfg.Index, cfg.Name, path); err != nil {
			return err
		}
	}
	return nil
}

// checkSamples fails unless every sample plugin joined.
func checkSamples(active []adaptation.PluginInfo) error {
	var missing []string
	for _, cfg := range samplePlugins() {
		id := api.PluginID(cfg.Index, cfg.Name)
		if !slices.ContainsFunc(active, func(p adaptation.PluginInfo) bool { return p.Plugin == id }) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("sample plugin(s) %s did not start (see PLUGIN CHANGES; is %s mounted noexec?)",
			strings.Join(missing, ", "), os.TempDir())
	}
	return nil
}
