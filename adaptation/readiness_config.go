// SPDX-License-Identifier: Apache-2.0

// ReadinessConfig and WithPluginReadiness: the plugin_readiness table and its checks; WithReadinessChanges.

package adaptation

import (
	"errors"
	"fmt"
	"slices"
	"time"

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

// ReadinessConfig is the plugin_readiness table: whether a pod waits for its
// required plugins (the default validator's required_plugins and the pod's
// required-plugins annotation) before it is created.
type ReadinessConfig struct {
	// Wait bounds how long AwaitPlugins waits for a pod's required
	// plugins; 0 turns the gate off.
	Wait Duration `json:"wait,omitempty" toml:"wait"`
	// OnTimeout is what happens at the bound; "" means ReadinessFail.
	OnTimeout ReadinessTimeoutAction `json:"on_timeout,omitempty" toml:"on_timeout"`
	// ExemptNamespaces hold pods that never wait, such as those the
	// required plugins themselves run in.
	ExemptNamespaces []string `json:"exempt_namespaces,omitempty" toml:"exempt_namespaces"`
}

// readinessOptions is the gate's settings, as New keeps them.
type readinessOptions struct {
	wait      time.Duration // 0: off
	onTimeout ReadinessTimeoutAction
	exempt    []string
}

// WithPluginReadiness sets the readiness gate (see [Adaptation.AwaitPlugins]).
// It refuses an unknown OnTimeout, a negative Wait or one beyond
// MaxReadinessWait, and an empty namespace name; New refuses a Wait with no
// required plugins possible: the default validator must be on, since it is
// what honours required_plugins and the required-plugins annotation.
func WithPluginReadiness(cfg ReadinessConfig) Option {
	return func(o *options) error {
		wait := time.Duration(cfg.Wait)
		switch {
		case wait < 0:
			return fmt.Errorf("nrikit: plugin_readiness.wait: %v is negative", wait)
		case wait > MaxReadinessWait:
			return fmt.Errorf("nrikit: plugin_readiness.wait: %v is beyond %v, how long kubelet waits for RunPodSandbox", wait, MaxReadinessWait)
		case slices.Contains(cfg.ExemptNamespaces, ""):
			return errors.New("nrikit: plugin_readiness.exempt_namespaces: empty namespace name")
		}
		action := cfg.OnTimeout
		switch action {
		case "":
			action = ReadinessFail
		case ReadinessFail, ReadinessProceed:
		default:
			return fmt.Errorf("nrikit: plugin_readiness.on_timeout: %q is neither %q nor %q", action, ReadinessFail, ReadinessProceed)
		}
		o.readiness = readinessOptions{wait: wait, onTimeout: action, exempt: slices.Clone(cfg.ExemptNamespaces)}
		return nil
	}
}

// checkReadiness is New's check of the gate against the other options,
// which may come in any order.
func (o *options) checkReadiness() error {
	if o.readiness.wait > 0 && o.defaultValidator == nil {
		return errors.New("nrikit: plugin_readiness.wait: no required plugins are configured anywhere: " +
			"the default validator, which honours required_plugins and the required-plugins annotation, is off (default_validator.enable)")
	}
	return nil
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
		Validator: o.defaultValidator, DeadlineReserve: o.deadlineReserve, Log: o.logger,
	}
	if fn := o.readinessChanges; fn != nil {
		cfg.Notify = func(s readiness.State) { fn(readinessOf(s)) }
	}
	return cfg
}
