// SPDX-License-Identifier: Apache-2.0

package validator

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// A rule checks one aspect of a merged adjustment. It returns why it rejects
// it, starting with the config key or annotation that asked for the check,
// or "".
type rule func(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) string

// rules run in this order, the reference's; every violation is reported.
var rules = []rule{checkOCIHooks, checkSeccompPolicy, checkNamespaces, checkRequiredPlugins, checkSysctls}

func checkOCIHooks(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) string {
	if !cfg.RejectOCIHookAdjustment {
		return ""
	}
	owners, ok := simpleOwner(fieldOwners(req), api.Field_OciHooks)
	if !ok {
		return ""
	}
	return "reject_oci_hook_adjustment: " + plugins(strings.Split(owners, ",")) + " injected OCI hooks"
}

func checkSeccompPolicy(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) string {
	owner, ok := simpleOwner(fieldOwners(req), api.Field_SeccompPolicy)
	if !ok {
		return ""
	}
	// The profile is the one the runtime asked for, before any plugin.
	profile := req.GetContainer().GetLinux().GetSeccompProfile()
	var key, whose string
	switch t := profile.GetProfileType(); {
	case profile == nil || t == api.SecurityProfile_UNCONFINED:
		if cfg.RejectUnconfinedSeccompAdjustment {
			key, whose = "reject_unconfined_seccomp_adjustment", "an unconfined container"
		}
	case t == api.SecurityProfile_RUNTIME_DEFAULT:
		if cfg.RejectRuntimeDefaultSeccompAdjustment {
			key, whose = "reject_runtime_default_seccomp_adjustment", "a container with the runtime default profile"
		}
	case t == api.SecurityProfile_LOCALHOST:
		if cfg.RejectCustomSeccompAdjustment {
			key, whose = "reject_custom_seccomp_adjustment", "a container with a custom (localhost) profile"
		}
	}
	if key == "" {
		return ""
	}
	return fmt.Sprintf("%s: %s adjusted the seccomp policy of %s", key, plugins([]string{owner}), whose)
}

func checkNamespaces(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) string {
	if !cfg.RejectNamespaceAdjustment {
		return ""
	}
	return entriesAdjusted("reject_namespace_adjustment", "namespaces", entryOwners(fieldOwners(req), api.Field_Namespace))
}

func checkSysctls(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) string {
	if !cfg.RejectSysctlAdjustment {
		return ""
	}
	return entriesAdjusted("reject_sysctl_adjustment", "sysctls", entryOwners(fieldOwners(req), api.Field_Sysctl))
}

// entriesAdjusted says which plugin adjusted which entries, or "" if none:
// `plugin "10-a" adjusted sysctls (kernel.x, net.y), plugin "20-b" ...`.
func entriesAdjusted(key, what string, byPlugin map[string][]string) string {
	if len(byPlugin) == 0 {
		return ""
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(byPlugin)) {
		parts = append(parts, fmt.Sprintf("%s adjusted %s (%s)", plugins([]string{p}), what, strings.Join(byPlugin[p], ", ")))
	}
	return key + ": " + strings.Join(parts, ", ")
}

// plugins names one or more plugins: `plugin "10-a"`, `plugins "10-a", "20-b"`.
func plugins(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	if len(ids) == 1 {
		return "plugin " + quoted[0]
	}
	return "plugins " + strings.Join(quoted, ", ")
}
