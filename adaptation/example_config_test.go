// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"fmt"
	"time"

	nri "github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
)

// crioNRIConfig is CRI-O's [crio.nri] table as CRI-O declares it
// (internal/config/nri), with its own nri_-prefixed keys.
type crioNRIConfig struct {
	Enabled                   bool                 `toml:"enable_nri"`
	SocketPath                string               `toml:"nri_listen"`
	PluginPath                string               `toml:"nri_plugin_dir"`
	PluginConfigPath          string               `toml:"nri_plugin_config_dir"`
	PluginRegistrationTimeout time.Duration        `toml:"nri_plugin_registration_timeout"`
	PluginRequestTimeout      time.Duration        `toml:"nri_plugin_request_timeout"`
	DisableConnections        bool                 `toml:"nri_disable_connections"`
	DefaultValidator          *crioValidatorConfig `toml:"default_validator"`
	// The keys of per-plugin settings and event budgets, nri_-prefixed as
	// CRI-O's others.
	EventBudget     time.Duration                 `toml:"nri_event_budget"`
	DeadlineReserve time.Duration                 `toml:"nri_deadline_reserve"`
	BudgetCheck     string                        `toml:"nri_budget_check"`
	ExternalPlugins string                        `toml:"nri_external_plugins"`
	PluginSettings  map[string]crioPluginSettings `toml:"plugin_settings"`
	// The rollout keys, as a port would add them.
	ObserverQueue int `toml:"nri_observer_queue"`
	// The readiness gate's keys, as a port would add them.
	PluginReadiness *crioReadinessConfig `toml:"plugin_readiness"`
}

// crioReadinessConfig is the [crio.nri.plugin_readiness] table.
type crioReadinessConfig struct {
	Wait             time.Duration `toml:"nri_plugin_readiness_wait"`
	OnTimeout        string        `toml:"nri_plugin_readiness_on_timeout"`
	ExemptNamespaces []string      `toml:"nri_plugin_readiness_exempt_namespaces"`
	SetupReserve     time.Duration `toml:"nri_plugin_readiness_setup_reserve"`
}

// crioPluginSettings is one [crio.nri.plugin_settings."NN-name"] table.
type crioPluginSettings struct {
	RequestTimeout time.Duration      `toml:"nri_request_timeout"`
	FailurePolicy  *nri.FailurePolicy `toml:"nri_failure_policy"`
	Delivery       string             `toml:"nri_delivery"`
	Validation     string             `toml:"nri_validation"`
	Filter         *crioPluginFilter  `toml:"nri_filter"`
	Peer           *nri.PeerRules     `toml:"nri_peer"`
	Allow          []string           `toml:"nri_allow"`
}

// crioPluginFilter is one [crio.nri.plugin_settings."NN-name".nri_filter]
// table.
type crioPluginFilter struct {
	Namespaces        []string `toml:"nri_namespaces"`
	ExcludeNamespaces []string `toml:"nri_exclude_namespaces"`
	RuntimeHandlers   []string `toml:"nri_runtime_handlers"`
	PodLabels         []string `toml:"nri_pod_labels"`
	PodAnnotations    []string `toml:"nri_pod_annotations"`
}

// pluginFilter maps the table onto the option's form.
func (f *crioPluginFilter) pluginFilter() *nri.PluginFilter {
	if f == nil {
		return nil
	}
	return &nri.PluginFilter{Namespaces: f.Namespaces, ExcludeNamespaces: f.ExcludeNamespaces,
		RuntimeHandlers: f.RuntimeHandlers, PodLabels: f.PodLabels, PodAnnotations: f.PodAnnotations}
}

// crioValidatorConfig is CRI-O's [crio.nri.default_validator] table: eight
// keys, without the reference's reject_sysctl_adjustment.
type crioValidatorConfig struct {
	Enable                                bool     `toml:"nri_enable_default_validator"`
	RejectOCIHookAdjustment               bool     `toml:"nri_validator_reject_oci_hook_adjustment"`
	RejectRuntimeDefaultSeccompAdjustment bool     `toml:"nri_validator_reject_runtime_default_seccomp_adjustment"`
	RejectUnconfinedSeccompAdjustment     bool     `toml:"nri_validator_reject_unconfined_seccomp_adjustment"`
	RejectCustomSeccompAdjustment         bool     `toml:"nri_validator_reject_custom_seccomp_adjustment"`
	RejectNamespaceAdjustment             bool     `toml:"nri_validator_reject_namespace_adjustment"`
	RequiredPlugins                       []string `toml:"nri_validator_required_plugins"`
	TolerateMissingAnnotation             string   `toml:"nri_validator_tolerate_missing_plugins_annotation"`
	// DryRun is a key a port adds (nrikit's default_validator.dry_run).
	DryRun bool `toml:"nri_validator_dry_run"`
}

// toOptions is CRI-O's ToOptions and ConfigureTimeouts in one: the
// timeouts are options of this Adaptation, not package-level setters.
func (c *crioNRIConfig) toOptions() []nri.Option {
	var opts []nri.Option
	if c.SocketPath != "" {
		opts = append(opts, nri.WithSocketPath(c.SocketPath))
	}
	if c.PluginPath != "" {
		opts = append(opts, nri.WithPluginPath(c.PluginPath))
	}
	if c.PluginConfigPath != "" {
		opts = append(opts, nri.WithPluginConfigPath(c.PluginConfigPath))
	}
	if c.PluginRegistrationTimeout != 0 {
		opts = append(opts, nri.WithRegistrationTimeout(c.PluginRegistrationTimeout))
	}
	if c.PluginRequestTimeout != 0 {
		opts = append(opts, nri.WithRequestTimeout(c.PluginRequestTimeout))
	}
	if c.DisableConnections {
		opts = append(opts, nri.WithDisabledExternalConnections())
	}
	if v := c.DefaultValidator; v != nil {
		opts = append(opts, nri.WithDefaultValidator(&validator.DefaultValidatorConfig{
			Enable:                                v.Enable,
			RejectOCIHookAdjustment:               v.RejectOCIHookAdjustment,
			RejectRuntimeDefaultSeccompAdjustment: v.RejectRuntimeDefaultSeccompAdjustment,
			RejectUnconfinedSeccompAdjustment:     v.RejectUnconfinedSeccompAdjustment,
			RejectCustomSeccompAdjustment:         v.RejectCustomSeccompAdjustment,
			RejectNamespaceAdjustment:             v.RejectNamespaceAdjustment,
			RequiredPlugins:                       v.RequiredPlugins,
			TolerateMissingAnnotation:             v.TolerateMissingAnnotation,
			DryRun:                                v.DryRun,
		}))
	}
	if r := c.PluginReadiness; r != nil && r.Wait != 0 {
		opts = append(opts, nri.WithPluginReadiness(nri.ReadinessConfig{
			Wait: nri.Duration(r.Wait), OnTimeout: nri.ReadinessTimeoutAction(r.OnTimeout), ExemptNamespaces: r.ExemptNamespaces,
			SetupReserve: nri.Duration(r.SetupReserve),
		}))
	}
	return append(opts, c.budgetOptions()...)
}

// budgetOptions maps the per-plugin settings and event budget keys.
func (c *crioNRIConfig) budgetOptions() []nri.Option {
	var opts []nri.Option
	for key, s := range c.PluginSettings {
		opts = append(opts, nri.WithPluginSettings(key, nri.PluginSettings{
			RequestTimeout: nri.Duration(s.RequestTimeout), FailurePolicy: s.FailurePolicy, Peer: s.Peer, Allow: s.Allow,
			Delivery: nri.Delivery(s.Delivery), Validation: nri.Validation(s.Validation), Filter: s.Filter.pluginFilter()}))
	}
	if c.ObserverQueue != 0 {
		opts = append(opts, nri.WithObserverQueue(c.ObserverQueue))
	}
	if c.ExternalPlugins != "" {
		opts = append(opts, nri.WithExternalPlugins(nri.ExternalPlugins(c.ExternalPlugins)))
	}
	if c.EventBudget != 0 {
		opts = append(opts, nri.WithEventBudget(c.EventBudget))
	}
	if c.DeadlineReserve != 0 {
		opts = append(opts, nri.WithDeadlineReserve(c.DeadlineReserve))
	}
	if c.BudgetCheck != "" {
		opts = append(opts, nri.WithBudgetCheck(nri.BudgetCheck(c.BudgetCheck)))
	}
	return opts
}

// CRI-O's per-plugin settings and event budget, from
//
//	[crio.nri]
//	  nri_event_budget = "3s"
//	  nri_budget_check = "refuse"
//	[crio.nri.plugin_settings."10-dranet"]
//	  nri_request_timeout = "10s"
//	  nri_failure_policy = { fail_request = true, keep_connected = true }
//
// A bad value fails New, naming the setting.
func Example_crioPluginSettings() {
	c := &crioNRIConfig{
		Enabled:            true,
		DisableConnections: true,
		PluginPath:         nri.DefaultPluginPath,
		EventBudget:        3 * time.Second,
		BudgetCheck:        "refuse",
		PluginSettings: map[string]crioPluginSettings{"10-dranet": {
			RequestTimeout: 10 * time.Second,
			FailurePolicy:  &nri.FailurePolicy{FailRequest: true, KeepConnected: true},
		}},
	}
	a, err := nri.New("cri-o", "1.37.0", nil, nil, c.toOptions()...)
	fmt.Println(a != nil, err)

	c.PluginSettings["10-dranet"] = crioPluginSettings{RequestTimeout: -time.Second}
	_, err = nri.New("cri-o", "1.37.0", nil, nil, c.toOptions()...)
	fmt.Println(err)
	// Output:
	// true <nil>
	// nrikit: plugin_settings."10-dranet".request_timeout: must be positive, got -1s
}

// A containerd that embeds adaptation.Config reads, under its NRI table,
//
//	[plugins."io.containerd.nri.v1.nri"]
//	  event_budget = "3s"
//	  deadline_reserve = "100ms"
//	  budget_check = "warn"
//	  [plugins."io.containerd.nri.v1.nri".plugin_settings."10-dranet"]
//	    request_timeout = "10s"
//	    failure_policy  = { fail_request = true, keep_connected = true }
//
// which decodes to this Config (its JSON form has the same keys).
func Example_containerdPluginSettings() {
	cfg := nri.Config{
		DisableConnections: true,
		EventBudget:        nri.Duration(3 * time.Second),
		DeadlineReserve:    nri.Duration(100 * time.Millisecond),
		BudgetCheck:        nri.BudgetWarn,
		PluginSettings: map[string]nri.PluginSettings{"10-dranet": {
			RequestTimeout: nri.Duration(10 * time.Second),
			FailurePolicy:  &nri.FailurePolicy{FailRequest: true, KeepConnected: true},
		}},
	}
	a, err := nri.New("containerd", "v2.2.0", nil, nil, cfg.Options()...)
	fmt.Println(a != nil, err)
	// Output: true <nil>
}

// CRI-O keeps its own [crio.nri] keys and maps them onto options.
func Example_crioConfig() {
	c := &crioNRIConfig{
		Enabled:              true,
		PluginPath:           nri.DefaultPluginPath,
		PluginRequestTimeout: nri.DefaultPluginRequestTimeout,
		DisableConnections:   true,
		DefaultValidator: &crioValidatorConfig{
			Enable:                  true,
			RejectOCIHookAdjustment: true,
			RequiredPlugins:         []string{"10-policy"},
		},
	}
	a, err := nri.New("cri-o", "1.37.0", nil, nil, c.toOptions()...)
	fmt.Println(a != nil, err)
	// Output: true <nil>
}

// containerdNRIConfig is containerd's [plugins."io.containerd.nri.v1.nri"]
// table (internal/nri): the reference's key names, and the default
// validator's table as the validator's own config type.
type containerdNRIConfig struct {
	Disable                   bool                              `toml:"disable"`
	SocketPath                string                            `toml:"socket_path"`
	PluginPath                string                            `toml:"plugin_path"`
	PluginConfigPath          string                            `toml:"plugin_config_path"`
	PluginRegistrationTimeout time.Duration                     `toml:"plugin_registration_timeout"`
	PluginRequestTimeout      time.Duration                     `toml:"plugin_request_timeout"`
	DisableConnections        bool                              `toml:"disable_connections"`
	DefaultValidator          *validator.DefaultValidatorConfig `toml:"default_validator"`
}

// toOptions is containerd's toOptions and ConfigureTimeouts in one.
func (c *containerdNRIConfig) toOptions() []nri.Option {
	var opts []nri.Option
	if c.SocketPath != "" {
		opts = append(opts, nri.WithSocketPath(c.SocketPath))
	}
	if c.PluginPath != "" {
		opts = append(opts, nri.WithPluginPath(c.PluginPath))
	}
	if c.PluginConfigPath != "" {
		opts = append(opts, nri.WithPluginConfigPath(c.PluginConfigPath))
	}
	if c.PluginRegistrationTimeout != 0 {
		opts = append(opts, nri.WithRegistrationTimeout(c.PluginRegistrationTimeout))
	}
	if c.PluginRequestTimeout != 0 {
		opts = append(opts, nri.WithRequestTimeout(c.PluginRequestTimeout))
	}
	if c.DisableConnections {
		opts = append(opts, nri.WithDisabledExternalConnections())
	}
	if c.DefaultValidator != nil {
		opts = append(opts, nri.WithDefaultValidator(c.DefaultValidator))
	}
	return opts
}

// containerd keeps its own config type; only the validator's import and
// the timeout setters change.
func Example_containerdConfig() {
	c := &containerdNRIConfig{
		PluginPath:         nri.DefaultPluginPath,
		DisableConnections: true,
		DefaultValidator:   &validator.DefaultValidatorConfig{Enable: true, RejectNamespaceAdjustment: true},
	}
	a, err := nri.New("containerd", "v2.2.0", nil, nil, c.toOptions()...)
	fmt.Println(a != nil, err)
	// Output: true <nil>
}
