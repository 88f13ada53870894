// SPDX-License-Identifier: Apache-2.0

package validator

import (
	"slices"

	"github.com/nrikit/nrikit/api"
)

// PodRequirements is what a pod sandbox asks of the plugins before any of
// its containers exists: what a runtime waits for before creating it.
type PodRequirements struct {
	// Plugins are the required plugins: the configured RequiredPlugins,
	// then those the pod-scoped RequiredPlugins annotation adds. A name
	// matches a plugin as in RequiredPlugins. Do not modify it: without the
	// annotation it is the validator's own list.
	Plugins []string
	// Tolerated: the pod-scoped tolerate annotation says "true", so the
	// pod's containers are created without their required plugins.
	Tolerated bool
}

// ForPod returns what a pod sandbox requires. Only the pod-scoped
// annotations apply ("<key>/pod", then the bare key): the container-scoped
// ones ("<key>/container.<name>") are for that container's creation, which
// ValidateContainerAdjustment checks. An annotation that does not parse is
// an error, as it is for every container of the pod. For a pod without
// these annotations ForPod does not allocate.
func (v *DefaultValidator) ForPod(pod *api.PodSandbox) (PodRequirements, error) {
	if v.tolerateKeys[1] != "" {
		if value, found, ok := podAnnotation(pod, v.tolerateKeys); ok {
			tolerate, err := parseTolerate(value, found)
			if err != nil || tolerate {
				return PodRequirements{Tolerated: tolerate}, err
			}
		}
	}
	value, found, ok := podAnnotation(pod, v.requiredKeys)
	if !ok {
		return PodRequirements{Plugins: v.cfg.RequiredPlugins}, nil
	}
	annotated, err := parsePluginList(value, found)
	if err != nil {
		return PodRequirements{}, err
	}
	var seen names
	all := seen.addNew(nil, v.cfg.RequiredPlugins, keepAll)
	return PodRequirements{Plugins: seen.addNew(all, annotated, keepAll)}, nil
}

func keepAll(string) bool { return true }

// RequiredPlugins returns a copy of the configured RequiredPlugins: those
// every pod requires.
func (v *DefaultValidator) RequiredPlugins() []string { return slices.Clone(v.cfg.RequiredPlugins) }
