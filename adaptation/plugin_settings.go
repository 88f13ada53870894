// SPDX-License-Identifier: Apache-2.0

// PluginSettings: the operator's per-plugin settings, in the relay's form too; FailurePolicy.

package adaptation

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/relay"
	"github.com/nrikit/nrikit/internal/scope"
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
	// Delivery is DeliverySync (the default) or DeliveryObserve.
	Delivery Delivery `json:"delivery,omitempty" toml:"delivery"`
	// Validation is ValidationEnforce (the default) or ValidationDryRun.
	Validation Validation `json:"validation,omitempty" toml:"validation"`
	// Filter is the plugin's scope of pods; nil: every pod. It replaces a
	// built-in plugin's own (BuiltinPlugin.Filter).
	Filter *PluginFilter `json:"filter,omitempty" toml:"filter"`

	// Peer binds the plugin's name to the processes that may register under
	// it from the socket; nil: any (see PeerRules).
	Peer *PeerRules `json:"peer,omitempty" toml:"peer"`
	// Allow limits what the plugin may change to these classes (see
	// AllowClasses): "annotations", "env", "mounts", "updates" of other
	// containers, "evictions"... A reply that changes anything else fails
	// its setup event with ErrOutOfScope (which also matches ErrRejected),
	// naming the plugin and what it changed; its unsolicited updates
	// outside it are refused with the reason, and its updates from
	// Synchronize are not applied. nil: everything, as without settings;
	// empty: nothing (a plugin that only observes). A name that is not a
	// class fails New, naming the key.
	Allow []string `json:"allow,omitzero" toml:"allow"`

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

// relaySettings is the plugin_settings table as the relay looks it up.
func relaySettings(in map[string]PluginSettings) map[string]relay.Settings {
	out := make(map[string]relay.Settings, len(in))
	for key, s := range in {
		rs := relay.Settings{RequestTimeout: time.Duration(s.RequestTimeout), Peer: s.Peer.rules()}
		if s.Allow != nil {
			allow, _ := scope.Parse(s.Allow) // checked by WithPluginSettings
			rs.Allow = &allow
		}
		if s.FailurePolicy != nil {
			fp := nri.FailurePolicy(*s.FailurePolicy)
			rs.FailurePolicy = &fp
		}
		s.rolloutSettings(&rs)
		out[key] = rs
	}
	return out
}

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
		s.Peer = s.Peer.clone() // the caller's may change after
		s.Allow = cloneAllow(s.Allow)
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
	if d := time.Duration(s.RequestTimeout); d != 0 {
		if err := checkPluginTimeout(path+".request_timeout", d); err != nil {
			return err
		}
	}
	if s.Peer != nil {
		if err := s.Peer.rules().Validate(path + ".peer"); err != nil {
			return fmt.Errorf("nrikit: %w", err)
		}
	}
	if _, err := scope.Parse(s.Allow); err != nil {
		return fmt.Errorf("nrikit: %s.allow: %w", path, err)
	}
	return s.validateRollout(path)
}

// AllowClasses lists the classes PluginSettings.Allow takes: the fields of
// a container's adjustment (annotations, mounts, env, args, hooks,
// devices, resources, cgroups_path, oom_score, io_priority, seccomp,
// namespaces, sysctl, net_devices, scheduler, rdt, memory_policy, rlimits,
// cdi_devices), "updates" of other containers (in replies, from
// Synchronize, unsolicited) and "evictions". "resources" also covers the
// resources of the container an UpdateContainer updates.
func AllowClasses() []string { return scope.Names() }

// cloneAllow copies an allow list, keeping nil (everything) apart from
// empty (nothing).
func cloneAllow(allow []string) []string {
	if allow == nil {
		return nil
	}
	return append([]string{}, allow...)
}

// validSettingsKey accepts what a plugin may register as: "NN-name" with a
// valid index and name, or a valid bare name that does not begin like
// NN-name ("100-dranet" is not the name of plugins of any index, it is a
// mistyped index).
func validSettingsKey(key string) error {
	if !relay.IDKey(key) {
		return api.ValidatePluginName(key)
	}
	idx, name, _ := strings.Cut(key, "-")
	if err := api.ValidatePluginIndex(idx); err != nil {
		return fmt.Errorf("it begins like NN-name, but %q is not a two-digit index", idx)
	}
	return api.ValidatePluginName(name)
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

// FailurePolicy says what a plugin's timeout or lost connection means. A
// plugin may declare its own in ConfigureResponse (NRI v0.12.5); the runtime's
// default applies to plugins that declare none.
type FailurePolicy struct {
	// FailRequest makes a setup event fail when the plugin times out or is
	// lost, instead of continuing without it. It never fails a teardown or
	// notification event.
	FailRequest bool `json:"fail_request,omitempty" toml:"fail_request"`
	// KeepConnected keeps a plugin that only timed out, instead of dropping it.
	KeepConnected bool `json:"keep_connected,omitempty" toml:"keep_connected"`
}
