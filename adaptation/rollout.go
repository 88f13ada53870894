// SPDX-License-Identifier: Apache-2.0

// Rolling a plugin out gradually: observers, validators run dry, and scopes of pods, as the
// operator's settings choose them; their forms in PluginInfo, Status and ContainerRecord.

package adaptation

import (
	"fmt"
	"maps"
	"slices"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/filter"
	"github.com/nrikit/nrikit/internal/observe"
	"github.com/nrikit/nrikit/internal/readiness"
	"github.com/nrikit/nrikit/internal/records"
	"github.com/nrikit/nrikit/internal/relay"
)

// Delivery is how a plugin gets its events (PluginSettings.Delivery).
type Delivery string

const (
	// DeliverySync, the default, calls the plugin in the fan-out of each
	// event it takes: the runtime waits for it, and applies its replies.
	DeliverySync Delivery = "sync"
	// DeliveryObserve makes the plugin an observer. The runtime never
	// waits for it: its events go through its own queue, in order, one
	// call at a time, each within its request timeout; a setup event once
	// it succeeded, with the request as the other plugins left it (for
	// CreateContainer, the container with every plugin's adjustment
	// applied), a teardown or notification event at its start. A failed
	// creation never reaches it, nor its undo. Its snapshot is taken when
	// it joins, as any plugin's, but queued, not awaited. Its replies are
	// not applied (counted, and logged once a minute), its UpdateContainers
	// is refused, and its validations run dry. When WithObserverQueue
	// events, or 16 MiB of encoded requests, wait in its queue, it is
	// dropped with reason "observer queue overflow (N events behind)"; it
	// reconnects and resynchronizes. Stop delivers what its queue holds
	// within its context before Shutdown.
	DeliveryObserve Delivery = "observe"
)

// Validation is how a validator plugin's verdict is used
// (PluginSettings.Validation).
type Validation string

const (
	// ValidationEnforce, the default: a rejection fails the creation.
	ValidationEnforce Validation = "enforce"
	// ValidationDryRun queues the plugin's ValidateContainerAdjustment,
	// encoded before CreateContainer returns, as an observer's call: the
	// creation never waits for it. Its verdict is logged ("validator
	// 50-policy would reject container ns/pod/ctr: reason", at most once
	// a minute), counted (PluginStatus.DryRun) and kept in the
	// container's record (ValidationRecord.DryRun), never enforced. Its
	// CreateContainer, if it takes it, stays synchronous.
	ValidationDryRun Validation = "dry-run"
)

// PluginFilter is a plugin's scope of pods (PluginSettings.Filter,
// BuiltinPlugin.Filter): a pod outside it, and its containers, never reach
// the plugin. Each part left empty takes any pod; the parts that are set
// must all hold. It is decided once per plugin and pod, when nrikit first
// considers the pod for the plugin (its RunPodSandbox, the plugin's
// snapshot or catch-up), from what CRI fixes for a sandbox's life. The
// plugin gets no event of an out-of-scope pod or container, none is in its
// snapshot; its UpdateContainers entries for such containers fail, and the
// updates and evictions of such containers in its replies are dropped
// (both logged). A filtered validator validates only the creations in its
// scope. A pod outside a required plugin's scope does not wait for it
// (WithPluginReadiness), and its creation fails: that plugin cannot
// approve it.
type PluginFilter struct {
	// Namespaces are globs on the pod's namespace ("ml-*"); it must match
	// one. A glob's '*' matches any run of characters, '?' one, "[a-z]" one
	// of a class ("[!a-z]" one not in it), and '\' quotes the next one.
	Namespaces []string `json:"namespaces,omitempty" toml:"namespaces"`
	// ExcludeNamespaces are globs on the pod's namespace; it must match
	// none. They win over Namespaces.
	ExcludeNamespaces []string `json:"exclude_namespaces,omitempty" toml:"exclude_namespaces"`
	// RuntimeHandlers are runtime handler names; the pod's must be one.
	RuntimeHandlers []string `json:"runtime_handlers,omitempty" toml:"runtime_handlers"`
	// PodLabels are requirements on the pod's labels, all of which must
	// hold: "key=value", "key!=value", "key" (present), "!key" (absent).
	PodLabels []string `json:"pod_labels,omitempty" toml:"pod_labels"`
	// PodAnnotations are globs on annotation keys
	// ("nvidia.cdi.k8s.io/*"); each must match a key of the pod's.
	PodAnnotations []string `json:"pod_annotations,omitempty" toml:"pod_annotations"`
}

// selector checks f and returns its form for the relay; nil for a nil or
// empty filter. The error names the key at fault.
func (f *PluginFilter) selector() (*filter.Selector, error) {
	if f == nil {
		return nil, nil
	}
	return filter.New(filter.Spec{
		Namespaces: f.Namespaces, ExcludeNamespaces: f.ExcludeNamespaces, RuntimeHandlers: f.RuntimeHandlers,
		PodLabels: f.PodLabels, PodAnnotations: f.PodAnnotations,
	})
}

// clone copies f, so that no caller shares its slices with the adaptation.
func (f *PluginFilter) clone() *PluginFilter {
	if f == nil {
		return nil
	}
	return &PluginFilter{
		Namespaces: slices.Clone(f.Namespaces), ExcludeNamespaces: slices.Clone(f.ExcludeNamespaces),
		RuntimeHandlers: slices.Clone(f.RuntimeHandlers), PodLabels: slices.Clone(f.PodLabels), PodAnnotations: slices.Clone(f.PodAnnotations),
	}
}

// pluginFilter is a relay filter's spec as PluginInfo shows it; nil for
// none.
func pluginFilter(s filter.Spec) *PluginFilter {
	if s.Empty() {
		return nil
	}
	return &PluginFilter{Namespaces: s.Namespaces, ExcludeNamespaces: s.ExcludeNamespaces, RuntimeHandlers: s.RuntimeHandlers, PodLabels: s.PodLabels, PodAnnotations: s.PodAnnotations}
}

// DefaultObserverQueue is how many events may wait in an observer's queue
// (or a dry-run validator's) before it overflows; MaxObserverQueue bounds
// WithObserverQueue. A queue also overflows at ObserverQueueBytes of
// encoded requests.
const (
	DefaultObserverQueue = 1024
	MaxObserverQueue     = 1 << 20
	ObserverQueueBytes   = 16 << 20
)

// WithObserverQueue bounds the events waiting in each observer's queue,
// and each dry-run validator's (observer_queue): one more, or over
// ObserverQueueBytes of encoded requests, drops the plugin (see
// DeliveryObserve). n must be within 1 and MaxObserverQueue.
func WithObserverQueue(n int) Option {
	return func(o *options) error {
		if n < 1 || n > MaxObserverQueue {
			return fmt.Errorf("nrikit: observer_queue must be within 1 and %d, got %d", MaxObserverQueue, n)
		}
		o.observerQueue = n
		return nil
	}
}

// validateRollout checks the rollout keys of one plugin_settings entry;
// path is the entry's config path.
func (s PluginSettings) validateRollout(path string) error {
	switch s.Delivery {
	case "", DeliverySync, DeliveryObserve:
	default:
		return fmt.Errorf("nrikit: %s.delivery: %q is neither %q nor %q", path, s.Delivery, DeliverySync, DeliveryObserve)
	}
	switch s.Validation {
	case "", ValidationEnforce, ValidationDryRun:
	default:
		return fmt.Errorf("nrikit: %s.validation: %q is neither %q nor %q", path, s.Validation, ValidationEnforce, ValidationDryRun)
	}
	if s.Delivery == DeliveryObserve && s.FailurePolicy != nil && s.FailurePolicy.FailRequest {
		return fmt.Errorf("nrikit: %s: an observer (delivery = %q) cannot fail a request: failure_policy.fail_request must be false", path, DeliveryObserve)
	}
	if _, err := s.Filter.selector(); err != nil {
		return fmt.Errorf("nrikit: %s.filter.%w", path, err)
	}
	return nil
}

// checkRollout checks the rollout settings against the other options, once
// all are applied: a plugin the default validator requires cannot be an
// observer (it would never take part in a creation); one with a scope of
// pods gets a warning, since the pods outside it fail their creation.
func (o *options) checkRollout() error {
	if o.defaultValidator == nil {
		return nil
	}
	for _, name := range o.defaultValidator.RequiredPlugins() {
		for _, key := range slices.Sorted(maps.Keys(o.pluginSettings)) {
			s := o.pluginSettings[key]
			if !sameName(name, key) {
				continue
			}
			if s.Delivery == DeliveryObserve {
				return fmt.Errorf("nrikit: plugin_settings.%q.delivery: %q is a required plugin (default_validator.required_plugins), which cannot be an observer", key, name)
			}
			if s.Filter != nil {
				warnRequiredFilter(o, name, s.Filter)
			}
		}
		for _, b := range o.builtins {
			if b.Filter != nil && sameName(name, api.PluginID(b.Index, b.Name)) {
				warnRequiredFilter(o, name, b.Filter)
			}
		}
	}
	return nil
}

// warnRequiredFilter warns that the required plugin name has filter f.
func warnRequiredFilter(o *options, name string, f *PluginFilter) {
	o.logger.WithField("plugin", name).WithField("filter", fmt.Sprintf("%+v", *f)).
		Warn("nrikit: a required plugin has a filter: the creation of a container in a pod outside its scope fails")
}

// sameName tells whether a required name and a settings key can name the
// same plugin: one is the other, or one is "idx-name" and the other its
// bare name.
func sameName(a, b string) bool { return readiness.Matches(a, b) || readiness.Matches(b, a) }

// rolloutSettings puts the rollout keys of s into rs, the relay's form.
func (s PluginSettings) rolloutSettings(rs *relay.Settings) {
	rs.Observe = s.Delivery == DeliveryObserve
	rs.DryRun = s.Validation == ValidationDryRun
	rs.Filter, _ = s.Filter.selector() // checked by WithPluginSettings
}

// QueueStatus is the queue of an observer, or of a validator run dry, in
// Status.
type QueueStatus struct {
	// QueueLength counts the events not delivered yet: waiting, and the one
	// in delivery.
	QueueLength int `json:"queue_length"`
	// QueueBytes is the encoded size of the requests waiting.
	QueueBytes int `json:"queue_bytes"`
	// Delivered counts the calls made from the queue, whatever their
	// outcome (each is also in Calls).
	Delivered uint64 `json:"delivered"`
	// Lag is how long the oldest event not delivered yet has waited; 0
	// when none waits. LastLag is how long the last event delivered
	// waited, from being queued to its delivery.
	Lag     Duration `json:"lag"`
	LastLag Duration `json:"last_lag"`
	// Overflows counts the instances of this plugin dropped because their
	// queue overflowed, since New.
	Overflows uint64 `json:"overflows"`
	// RepliesIgnored counts the adjustments, updates and evictions its
	// replies (and refused UpdateContainers) asked for, not applied.
	RepliesIgnored uint64 `json:"replies_ignored"`
}

// DryRunStatus is what a validator run dry said, in Status.
type DryRunStatus struct {
	Validations uint64 `json:"validations"`  // answered
	WouldReject uint64 `json:"would_reject"` // of them, rejections
}

// rolloutStatus fills ps's rollout fields from the relay's.
func rolloutStatus(ps *PluginStatus, ro relay.RolloutInfo) {
	if q := ro.Queue; q != nil {
		ps.Queue = queueStatus(*q, ro)
	}
	if ro.DryRun || ro.Validated > 0 {
		ps.DryRun = &DryRunStatus{Validations: ro.Validated, WouldReject: ro.WouldReject}
	}
}

func queueStatus(q observe.Stats, ro relay.RolloutInfo) *QueueStatus {
	return &QueueStatus{
		QueueLength: q.Length, QueueBytes: q.Bytes, Delivered: q.Delivered, Lag: Duration(q.Lag), LastLag: Duration(q.LastLag),
		Overflows: ro.Overflows, RepliesIgnored: ro.Ignored,
	}
}

// DryRunVerdict is what a validator run dry said of a creation
// (ValidationRecord.DryRun).
type DryRunVerdict struct {
	// Validator is the plugin's "NN-name", or "default_validator".
	Validator string `json:"validator"`
	// Rejected: it would have rejected the creation, for Reason.
	Rejected bool   `json:"rejected"`
	Reason   string `json:"reason,omitempty"`
}

func delivery(observer bool) Delivery {
	if observer {
		return DeliveryObserve
	}
	return ""
}

func validation(dryRun bool) Validation {
	if dryRun {
		return ValidationDryRun
	}
	return ""
}

func dryRunVerdicts(in []records.Verdict) []DryRunVerdict {
	if len(in) == 0 {
		return nil
	}
	out := make([]DryRunVerdict, len(in))
	for i, v := range in {
		out[i] = DryRunVerdict{Validator: v.Validator, Rejected: v.Rejected, Reason: v.Reason}
	}
	return out
}
