// SPDX-License-Identifier: Apache-2.0

// DefaultValidatorConfig: the operator's policy, in the reference's config keys.

package validator

import "slices"

// DefaultValidatorConfig is the default validator's configuration. Every
// rule is off unless set; Enable turns the validator on at all.
type DefaultValidatorConfig struct {
	// Enable turns the default validator on.
	Enable bool `json:"enable,omitempty" toml:"enable" yaml:"enable"`
	// RejectOCIHookAdjustment rejects a container to which a plugin added
	// OCI hooks.
	RejectOCIHookAdjustment bool `json:"reject_oci_hook_adjustment,omitempty" toml:"reject_oci_hook_adjustment" yaml:"rejectOCIHookAdjustment"`
	// RejectRuntimeDefaultSeccompAdjustment rejects a container whose
	// seccomp policy a plugin changed while its profile is the runtime's
	// default.
	RejectRuntimeDefaultSeccompAdjustment bool `json:"reject_runtime_default_seccomp_adjustment,omitempty" toml:"reject_runtime_default_seccomp_adjustment" yaml:"rejectRuntimeDefaultSeccompAdjustment"`
	// RejectUnconfinedSeccompAdjustment rejects a container whose seccomp
	// policy a plugin changed while it has no profile or an unconfined one.
	RejectUnconfinedSeccompAdjustment bool `json:"reject_unconfined_seccomp_adjustment,omitempty" toml:"reject_unconfined_seccomp_adjustment" yaml:"rejectUnconfinedSeccompAdjustment"`
	// RejectCustomSeccompAdjustment rejects a container whose seccomp
	// policy a plugin changed while its profile is a custom (localhost) one.
	RejectCustomSeccompAdjustment bool `json:"reject_custom_seccomp_adjustment,omitempty" toml:"reject_custom_seccomp_adjustment" yaml:"rejectCustomSeccompAdjustment"`
	// RejectNamespaceAdjustment rejects a container whose Linux namespaces a
	// plugin added, replaced or removed.
	RejectNamespaceAdjustment bool `json:"reject_namespace_adjustment,omitempty" toml:"reject_namespace_adjustment" yaml:"rejectNamespaceAdjustment"`
	// RejectSysctlAdjustment rejects a container whose sysctls a plugin set
	// or removed.
	RejectSysctlAdjustment bool `json:"reject_sysctl_adjustment,omitempty" toml:"reject_sysctl_adjustment" yaml:"rejectSysctlAdjustment"`
	// RequiredPlugins must all have handled a container's creation, or it
	// fails. A name matches a plugin by its name alone ("foo") or with its
	// index ("10-foo"). It applies to every container, static pods'
	// included: give those the TolerateMissingAnnotation.
	RequiredPlugins []string `json:"required_plugins,omitempty" toml:"required_plugins" yaml:"requiredPlugins"`
	// TolerateMissingAnnotation is a pod annotation key; a container whose
	// effective value of it is "true" (strconv.ParseBool) is created without
	// its required plugins. A value that does not parse fails the creation.
	// Empty: nothing tolerates missing plugins.
	TolerateMissingAnnotation string `json:"tolerate_missing_plugins_annotation,omitempty" toml:"tolerate_missing_plugins_annotation" yaml:"tolerateMissingPluginsAnnotation"`
	// DryRun runs the rules without enforcing them: a creation they would
	// reject proceeds, and the runtime's wiring (adaptation) logs a "would
	// reject" warning, at most one a minute, and counts it. An addition
	// of nrikit's; the reference has no such key.
	DryRun bool `json:"dry_run,omitempty" toml:"dry_run" yaml:"dryRun"`
}

// clone copies c, so that the caller's later changes do not reach a running
// validator.
func (c *DefaultValidatorConfig) clone() DefaultValidatorConfig {
	out := *c
	out.RequiredPlugins = slices.Clone(c.RequiredPlugins)
	return out
}
