// SPDX-License-Identifier: Apache-2.0

// PluginSettings: the operator's per-plugin settings, and what each plugin's effective values are.

package adaptation

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
)

// PluginSettings is what the operator sets for one plugin, in the
// plugin_settings table keyed by "NN-name" or by bare "name". Zero fields
// leave the plugin's own or the runtime's default value.
type PluginSettings struct {
	// RequestTimeout bounds each call to the plugin instead of the
	// runtime's request timeout, and is sent to the plugin in Configure.
	RequestTimeout Duration `json:"request_timeout,omitempty" toml:"request_timeout"`
	// FailurePolicy replaces the one the plugin declares, or the runtime's
	// default: the operator's word wins.
	FailurePolicy *FailurePolicy `json:"failure_policy,omitempty" toml:"failure_policy"`

	// A timeout the plugin asks for itself (containerd/nri#304) would be
	// read here, below the operator's: its wire field is not settled
	// upstream yet (in v0.12.5 its number is failure_policy's).
}

// Where a plugin's effective request timeout or failure policy came from,
// as PluginInfo and the "plugin connected" log line say.
const (
	FromOperator = "operator" // the plugin_settings table
	FromPlugin   = "plugin"   // the plugin's ConfigureResponse
	FromDefault  = "default"  // the runtime's setting for every plugin
)

// WithPluginSettings sets the operator's settings for the plugin key names:
// "NN-name" (one instance) or "name" (any index). An "NN-name" entry wins
// over a "name" one. They are looked up each time a plugin registers, so a
// restarted or replacing instance gets them again.
func WithPluginSettings(key string, s PluginSettings) Option {
	return func(o *options) error {
		if err := s.validate(key); err != nil {
			return err
		}
		if o.pluginSettings == nil {
			o.pluginSettings = map[string]PluginSettings{}
		}
		o.pluginSettings[key] = s
		return nil
	}
}

// validate names the config path of the first bad value, as New reports it.
func (s PluginSettings) validate(key string) error {
	path := fmt.Sprintf("plugin_settings.%q", key)
	if err := validSettingsKey(key); err != nil {
		return fmt.Errorf("nrikit: %s: not a plugin name or NN-name: %w", path, err)
	}
	if d := time.Duration(s.RequestTimeout); d < 0 {
		return fmt.Errorf("nrikit: %s.request_timeout: must be positive, got %v", path, d)
	}
	return nil
}

// validSettingsKey accepts what a plugin may register as: "NN-name" with a
// valid index and name, or a valid bare name.
func validSettingsKey(key string) error {
	if idx, name, ok := strings.Cut(key, "-"); ok && api.ValidatePluginIndex(idx) == nil {
		return api.ValidatePluginName(name)
	}
	return api.ValidatePluginName(key)
}

// settingsFor is the operator's entry for p: its "NN-name" one, else its
// "name" one.
func (o *options) settingsFor(p *plugin) (PluginSettings, bool) {
	if s, ok := o.pluginSettings[p.id]; ok {
		return s, true
	}
	s, ok := o.pluginSettings[p.name]
	return s, ok
}

// applySettings gives p its effective request timeout, from the operator's
// settings or the runtime's default; called at each registration.
func (a *Adaptation) applySettings(p *plugin) {
	p.timeout, p.timeoutFrom = a.opts.request, FromDefault
	if s, ok := a.opts.settingsFor(p); ok && s.RequestTimeout > 0 {
		p.timeout, p.timeoutFrom = time.Duration(s.RequestTimeout), FromOperator
	}
}

// effectivePolicy is p's failure policy and where it came from: the
// operator's settings, else what the plugin declared, else the default.
func (a *Adaptation) effectivePolicy(p *plugin, declared *api.FailurePolicy) (FailurePolicy, string) {
	if s, ok := a.opts.settingsFor(p); ok && s.FailurePolicy != nil {
		return *s.FailurePolicy, FromOperator
	}
	if declared != nil {
		return failurePolicyFrom(declared), FromPlugin
	}
	return a.opts.failurePolicy, FromDefault
}

// settingsOptions is the plugin_settings table as options, in key order so
// that New reports the same bad entry every time.
func (c Config) settingsOptions() []Option {
	keys := slices.Sorted(maps.Keys(c.PluginSettings))
	opts := make([]Option, 0, len(keys))
	for _, k := range keys {
		opts = append(opts, WithPluginSettings(k, c.PluginSettings[k]))
	}
	return opts
}

// settingsFields are p's effective timeout and failure policy, and where
// each came from, for the "plugin connected" line.
func (p *plugin) settingsFields() logrus.Fields {
	return logrus.Fields{
		"request_timeout": p.timeout, "request_timeout_from": p.timeoutFrom,
		"fail_request": p.policy.FailRequest, "keep_connected": p.policy.KeepConnected, "failure_policy_from": p.policyFrom,
	}
}
