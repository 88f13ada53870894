// SPDX-License-Identifier: Apache-2.0

// ReadinessConfig and WithPluginReadiness: the plugin_readiness table and its checks; WithReadinessChanges.

package adaptation

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/internal/readiness"
)

// ReadinessTimeoutAction says what AwaitPlugins does, and what RunPodSandbox
// does, when a pod's required plugins are not all there by the bound.
type ReadinessTimeoutAction string

// The actions of plugin_readiness.on_timeout.
const (
	// ReadinessFail fails the pod's creation with ErrPluginsNotReady.
	ReadinessFail ReadinessTimeoutAction = "fail"
	// ReadinessProceed lets it go on without them, with a warning, and
	// counts it in Readiness.Proceeded.
	ReadinessProceed ReadinessTimeoutAction = "proceed"
)

// MaxReadinessWait is the longest plugin_readiness.wait: kubelet's default
// runtime request timeout, how long it waits for RunPodSandbox. A longer
// wait would outlast the call it holds back.
const MaxReadinessWait = 2 * time.Minute

// DefaultSetupReserve is plugin_readiness.setup_reserve's default: what a
// pod let through by AwaitPlugins keeps of its caller's deadline for the
// runtime's own work before its RunPodSandbox event (containerd's and
// CRI-O's sandbox, network and pause container: a fraction of a second on
// an idle node, seconds on a busy one).
const DefaultSetupReserve = 2 * time.Second

// ReadinessConfig is the plugin_readiness table: whether a pod waits for its
// required plugins (the pod's required-plugins annotation, and the
// default_validator table's required_plugins, enabled or not) before it is
// created. It needs no other key.
type ReadinessConfig struct {
	// Wait bounds how long AwaitPlugins waits for a pod's required
	// plugins; 0 turns the gate off.
	Wait Duration `json:"wait,omitempty" toml:"wait"`
	// OnTimeout is what happens at the bound; "" means ReadinessFail.
	OnTimeout ReadinessTimeoutAction `json:"on_timeout,omitempty" toml:"on_timeout"`
	// ExemptNamespaces hold pods that never wait, such as those the
	// required plugins themselves run in.
	ExemptNamespaces []string `json:"exempt_namespaces,omitempty" toml:"exempt_namespaces"`
	// SetupReserve is what a pod let through keeps of its caller's
	// deadline for the runtime's work between AwaitPlugins and its
	// RunPodSandbox event; 0 keeps DefaultSetupReserve.
	SetupReserve Duration `json:"setup_reserve,omitempty" toml:"setup_reserve"`
}

// readinessOptions is the gate's settings, as New keeps them.
type readinessOptions struct {
	wait         time.Duration // 0: off
	onTimeout    ReadinessTimeoutAction
	exempt       []string
	setupReserve time.Duration
}

// WithPluginReadiness sets the readiness gate (see [Adaptation.AwaitPlugins]).
// It needs no other option: a pod's required plugins are those its
// required-plugins annotation names, and the default validator table's
// required_plugins (with its tolerate_missing_plugins_annotation), whether
// or not the validator is enabled. It refuses only values that contradict
// themselves or the call they hold: an unknown OnTimeout, a negative Wait
// or SetupReserve, a Wait beyond MaxReadinessWait, an empty namespace name.
func WithPluginReadiness(cfg ReadinessConfig) Option {
	return func(o *options) error {
		wait, setup := time.Duration(cfg.Wait), time.Duration(cfg.SetupReserve)
		switch {
		case wait < 0:
			return fmt.Errorf("nrikit: plugin_readiness.wait: %v is negative", wait)
		case wait > MaxReadinessWait:
			return fmt.Errorf("nrikit: plugin_readiness.wait: %v is beyond %v, how long kubelet waits for RunPodSandbox", wait, MaxReadinessWait)
		case setup < 0:
			return fmt.Errorf("nrikit: plugin_readiness.setup_reserve: %v is negative", setup)
		case slices.Contains(cfg.ExemptNamespaces, ""):
			return errors.New("nrikit: plugin_readiness.exempt_namespaces: empty namespace name")
		}
		if setup == 0 {
			setup = DefaultSetupReserve
		}
		action := cfg.OnTimeout
		switch action {
		case "":
			action = ReadinessFail
		case ReadinessFail, ReadinessProceed:
		default:
			return fmt.Errorf("nrikit: plugin_readiness.on_timeout: %q is neither %q nor %q", action, ReadinessFail, ReadinessProceed)
		}
		o.readiness = readinessOptions{wait: wait, onTimeout: action, exempt: slices.Clone(cfg.ExemptNamespaces), setupReserve: setup}
		return nil
	}
}

// requirementsOf is what the readiness gate reads of a default_validator
// table: its required_plugins, less empty names (which no plugin matches),
// and its tolerate annotation; nil for none.
func requirementsOf(cfg *validator.DefaultValidatorConfig) *validator.DefaultValidatorConfig {
	if cfg == nil {
		return nil
	}
	return &validator.DefaultValidatorConfig{
		RequiredPlugins:           slices.DeleteFunc(slices.Clone(cfg.RequiredPlugins), func(n string) bool { return n == "" }),
		TolerateMissingAnnotation: cfg.TolerateMissingAnnotation,
	}
}

// WithReadinessChanges calls fn each time Readiness().Ready flips, with the
// new Readiness, so that a runtime can update the condition it reports. A
// plugin replaced by a new instance of it does not flip it. Calls come one
// at a time, in order, from a goroutine of nrikit's that holds no lock: fn
// may take the runtime's own locks and call Readiness. A panic in fn is
// logged and recovered. Stop, which flips Readiness to not ready, waits for
// fn to return, within its context and a grace of a second after it; if fn
// is still blocked then (say, on a lock Stop's caller holds), Stop returns
// ErrStopAbandoned, and the flips still queued are delivered once fn
// returns.
func WithReadinessChanges(fn func(Readiness)) Option {
	return func(o *options) error {
		if fn == nil {
			return errors.New("nrikit: nil readiness change callback")
		}
		o.readinessChanges = fn
		return nil
	}
}

// readinessConfig is the gate's settings for its tracker: the runtime's
// callback gets each flip in its own form.
func (o *options) readinessConfig() readiness.Config {
	cfg := readiness.Config{
		Wait: o.readiness.wait, Proceed: o.readiness.onTimeout == ReadinessProceed, Exempt: o.readiness.exempt,
		Validator: o.defaultValidator, DeadlineReserve: o.deadlineReserve, SetupReserve: o.readiness.setupReserve, Log: o.logger,
	}
	if cfg.Validator == nil && cfg.Wait > 0 {
		// The gate stands alone: it reads the default_validator table
		// (or, without one, only the annotation) with the validator off.
		cfg.Validator = validator.NewDefaultValidator(o.requirements)
	}
	if fn := o.readinessChanges; fn != nil {
		cfg.Notify = func(s readiness.State) { fn(readinessOf(s)) }
	}
	return cfg
}
