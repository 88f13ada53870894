// SPDX-License-Identifier: Apache-2.0

package main

import (
	"maps"
	"slices"

	"github.com/nrikit/nrikit/adaptation"
)

// pluginSettingsOptions are the plugin_settings of a run: the --config
// table's, with what --allow, --observe and --filter say of a key laid over
// them field by field, so that a flag adds to a configured plugin's settings
// rather than replacing them. A bad key or value fails New, naming it.
func pluginSettingsOptions(cfg config) []adaptation.Option {
	settings := map[string]adaptation.PluginSettings{}
	if cfg.runtimeConfig != nil {
		maps.Copy(settings, cfg.runtimeConfig.PluginSettings)
	}
	update := func(key string, set func(*adaptation.PluginSettings)) {
		s := settings[key]
		set(&s)
		settings[key] = s
	}
	for key, classes := range cfg.allow {
		update(key, func(s *adaptation.PluginSettings) { s.Allow = classes })
	}
	for _, name := range cfg.observe {
		update(name, func(s *adaptation.PluginSettings) { s.Delivery = adaptation.DeliveryObserve })
	}
	for name, f := range cfg.filters {
		update(name, func(s *adaptation.PluginSettings) { s.Filter = f })
	}
	var opts []adaptation.Option
	for _, key := range slices.Sorted(maps.Keys(settings)) {
		opts = append(opts, adaptation.WithPluginSettings(key, settings[key]))
	}
	return opts
}
