// SPDX-License-Identifier: Apache-2.0

// Config and its TOML/JSON form.

package adaptation

import (
	"fmt"
	"time"

	"github.com/nrikit/nrikit/adaptation/validator"
)

// Config is the operator-facing configuration, with the keys operators
// already write in their runtime's config file; a runtime can embed it.
// Zero fields keep their defaults, so a zero Config is usable; DefaultConfig
// has them filled in, for a runtime that prints its default configuration.
type Config struct {
	PluginPath       string `json:"plugin_path,omitempty" toml:"plugin_path"`
	PluginConfigPath string `json:"plugin_config_path,omitempty" toml:"plugin_config_path"`
	// DisablePluginPath starts no pre-installed plugins, whatever
	// PluginPath says ("" there means the default directory).
	DisablePluginPath bool   `json:"disable_plugin_path,omitempty" toml:"disable_plugin_path"`
	SocketPath        string `json:"socket_path,omitempty" toml:"socket_path"`
	// SocketGroup (a group name or numeric gid) may connect to the socket;
	// "" keeps it the runtime's user's alone.
	SocketGroup         string        `json:"socket_group,omitempty" toml:"socket_group"`
	RegistrationTimeout Duration      `json:"plugin_registration_timeout,omitempty" toml:"plugin_registration_timeout"`
	RequestTimeout      Duration      `json:"plugin_request_timeout,omitempty" toml:"plugin_request_timeout"`
	SyncTimeout         Duration      `json:"plugin_sync_timeout,omitempty" toml:"plugin_sync_timeout"`
	DisableConnections  bool          `json:"disable_connections,omitempty" toml:"disable_connections"`
	FailurePolicy       FailurePolicy `json:"default_failure_policy,omitempty" toml:"default_failure_policy"`
	// DefaultValidator is the default validator's table; nil leaves it off.
	DefaultValidator *validator.DefaultValidatorConfig `json:"default_validator,omitempty" toml:"default_validator"`
	// PluginReadiness is the readiness gate's table; nil leaves it off.
	PluginReadiness *ReadinessConfig `json:"plugin_readiness,omitempty" toml:"plugin_readiness"`
	// WASMMemoryLimit caps each WASM plugin's linear memory, in bytes.
	WASMMemoryLimit uint64 `json:"wasm_memory_limit,omitempty" toml:"wasm_memory_limit"`
	// WASMCompilationCacheDir keeps WASM plugins' compiled code across
	// restarts; "" keeps it in memory only.
	WASMCompilationCacheDir string `json:"wasm_compilation_cache_dir,omitempty" toml:"wasm_compilation_cache_dir"`
	// ContainerRecords keeps the record of which plugin changed what for
	// this many containers (Adaptation.ContainerRecord); 0 keeps
	// DefaultContainerRecords, a negative number (-1) keeps none.
	ContainerRecords int `json:"container_records,omitempty" toml:"container_records"`
	// StatusSocket serves Status over HTTP on this unix socket; "" serves
	// none.
	StatusSocket string `json:"status_socket,omitempty" toml:"status_socket"`
	// PluginSettings holds the operator's settings per plugin, keyed by
	// "NN-name" or bare "name" (see WithPluginSettings).
	PluginSettings map[string]PluginSettings `json:"plugin_settings,omitempty" toml:"plugin_settings"`
	// EventBudget is NRI's share of one setup event; 0 sets none (see
	// WithEventBudget).
	EventBudget Duration `json:"event_budget,omitempty" toml:"event_budget"`
	// DeadlineReserve is the time left to the runtime after the last plugin
	// call of an event with a deadline; 0 keeps DefaultDeadlineReserve.
	DeadlineReserve Duration `json:"deadline_reserve,omitempty" toml:"deadline_reserve"`
	// BudgetCheck is what a plugin that would push an event's worst case
	// over EventBudget meets: "warn" (the default), "refuse" or "off".
	BudgetCheck BudgetCheck `json:"budget_check,omitempty" toml:"budget_check"`
	// ObserverQueue bounds the events waiting for each observer; 0 keeps
	// DefaultObserverQueue (see WithObserverQueue).
	ObserverQueue int `json:"observer_queue,omitempty" toml:"observer_queue"`
	// ExternalPlugins says which names may register from the socket:
	// "any" (the default) or "configured" (see WithExternalPlugins).
	ExternalPlugins ExternalPlugins `json:"external_plugins,omitempty" toml:"external_plugins"`
}

// DefaultConfig returns a Config with every default filled in: the same
// settings as a zero Config, but written out when marshalled.
func DefaultConfig() *Config {
	return &Config{
		PluginPath:          DefaultPluginPath,
		PluginConfigPath:    DefaultPluginConfigPath,
		SocketPath:          DefaultSocketPath,
		RegistrationTimeout: Duration(DefaultRegistrationTimeout),
		RequestTimeout:      Duration(DefaultRequestTimeout),
		SyncTimeout:         Duration(DefaultSyncTimeout),
		// Present but not enabled, so that a printed default config shows
		// the validator's keys, as containerd's does.
		DefaultValidator: &validator.DefaultValidatorConfig{},
		WASMMemoryLimit:  DefaultWASMMemoryLimit,
		DeadlineReserve:  Duration(DefaultDeadlineReserve),
		BudgetCheck:      BudgetWarn,
		ObserverQueue:    DefaultObserverQueue,
		ContainerRecords: DefaultContainerRecords,
		// Present but empty or off, so that a printed default config
		// (containerd's config default) shows these tables and their keys.
		PluginSettings: map[string]PluginSettings{},
		PluginReadiness: &ReadinessConfig{
			OnTimeout: ReadinessFail, ExemptNamespaces: []string{}, SetupReserve: Duration(DefaultSetupReserve),
		},
		ExternalPlugins: ExternalAny,
	}
}

// Options turns the config into options; unset fields are left out.
func (c Config) Options() []Option {
	var opts []Option
	addString := func(v string, opt func(string) Option) {
		if v != "" {
			opts = append(opts, opt(v))
		}
	}
	addDuration := func(d Duration, opt func(time.Duration) Option) {
		if d != 0 {
			opts = append(opts, opt(time.Duration(d)))
		}
	}
	addString(c.PluginPath, WithPluginPath)
	if c.DisablePluginPath {
		opts = append(opts, WithPluginPath(""))
	}
	addString(c.PluginConfigPath, WithPluginConfigPath)
	addString(c.SocketPath, WithSocketPath)
	addString(c.SocketGroup, WithSocketGroup)
	addDuration(c.RegistrationTimeout, WithRegistrationTimeout)
	addDuration(c.RequestTimeout, WithRequestTimeout)
	addDuration(c.SyncTimeout, WithSyncTimeout)
	if c.DisableConnections {
		opts = append(opts, WithDisabledExternalConnections())
	}
	if c.DefaultValidator != nil {
		opts = append(opts, WithDefaultValidator(c.DefaultValidator))
	}
	if c.PluginReadiness != nil {
		opts = append(opts, WithPluginReadiness(*c.PluginReadiness))
	}
	if c.WASMMemoryLimit != 0 {
		opts = append(opts, WithWASMMemoryLimit(c.WASMMemoryLimit))
	}
	addString(c.WASMCompilationCacheDir, WithWASMCompilationCacheDir)
	switch {
	case c.ContainerRecords < 0:
		opts = append(opts, WithContainerRecords(0))
	case c.ContainerRecords > 0:
		opts = append(opts, WithContainerRecords(c.ContainerRecords))
	}
	addString(c.StatusSocket, WithStatusSocket)
	opts = append(opts, c.settingsOptions()...)
	addDuration(c.EventBudget, WithEventBudget)
	addDuration(c.DeadlineReserve, WithDeadlineReserve)
	if c.BudgetCheck != "" {
		opts = append(opts, WithBudgetCheck(c.BudgetCheck))
	}
	if c.ObserverQueue != 0 {
		opts = append(opts, WithObserverQueue(c.ObserverQueue))
	}
	if c.ExternalPlugins != "" {
		opts = append(opts, WithExternalPlugins(c.ExternalPlugins))
	}
	return append(opts, WithDefaultFailurePolicy(c.FailurePolicy))
}

// Duration reads and writes Go duration strings ("5s", "1m30s") in config
// files.
type Duration time.Duration

// MarshalText writes the duration as "5s".
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(time.Duration(d).String()), nil
}

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("nrikit: bad duration %q: %w", text, err)
	}
	*d = Duration(v)
	return nil
}
