// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
)

// fromPath tells whether a plugin came from the plugin path.
func fromPath(kind string) bool {
	return kind == adaptation.KindPreinstalled || kind == adaptation.KindWASM
}

// checkPluginPath fails a --plugin-path run in which no plugin from that
// path joined: a run that tested nothing must not read as healthy. It says
// what became of the directory's files.
func checkPluginPath(cfg config, active []adaptation.PluginInfo, changes []PluginChangeReport) error {
	if cfg.samples || cfg.pluginPath == "" {
		return nil
	}
	if slices.ContainsFunc(active, func(p adaptation.PluginInfo) bool { return fromPath(p.Kind) }) {
		return nil
	}
	var skipped, failed []string
	for _, c := range changes {
		switch {
		case c.Change == string(adaptation.PluginSkipped):
			skipped = append(skipped, c.Plugin+": "+c.Reason)
		case c.Change == string(adaptation.PluginFailed) && fromPath(c.Kind):
			failed = append(failed, c.Plugin+" during "+c.Phase+": "+c.Reason)
		}
	}
	why := "it holds no plugin file"
	if len(skipped)+len(failed) > 0 {
		var parts []string
		if len(skipped) > 0 {
			parts = append(parts, fmt.Sprintf("%d file(s) skipped (%s)", len(skipped), strings.Join(skipped, "; ")))
		}
		if len(failed) > 0 {
			parts = append(parts, fmt.Sprintf("%d failed to join (%s)", len(failed), strings.Join(failed, "; ")))
		}
		why = strings.Join(parts, ", ")
	}
	return fmt.Errorf("no plugin from --plugin-path %s joined: %s", cfg.pluginPath, why)
}

// skippedFiles lists the plugin path's files that nrikit did not start, as
// "name: reason".
func skippedFiles(changes []PluginChangeReport) []string {
	var out []string
	for _, c := range changes {
		if c.Change == string(adaptation.PluginSkipped) {
			out = append(out, c.Plugin+": "+c.Reason)
		}
	}
	return out
}

// skippedText is the RESULT line's part on skipped files; "" if none.
func skippedText(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return fmt.Sprintf("; skipped files: %d (%s)", len(files), strings.Join(files, "; "))
}
