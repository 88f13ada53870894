// SPDX-License-Identifier: Apache-2.0

package validator

import "github.com/nrikit/nrikit/api"

// RequiredPlugins is the pod annotation that names, as a YAML list, plugins
// required for a pod's containers besides the configured ones. Like the
// tolerate annotation it is scoped (see effectiveAnnotation).
const RequiredPlugins = "required-plugins.noderesource.dev"

// effectiveAnnotation finds the pod annotation key as it applies to one
// container: "<key>/container.<container>" first, then "<key>/pod", then the
// bare key. It returns the key it found, to name in errors.
func effectiveAnnotation(pod *api.PodSandbox, key, container string) (value, found string, ok bool) {
	k := key + "/container." + container
	if v, ok := pod.GetAnnotations()[k]; ok {
		return v, k, true
	}
	return podAnnotation(pod, podScoped(key))
}

// podKeys are the keys of an annotation that apply to a whole pod, in the
// order they are looked up: "<key>/pod", then the bare key. Built once, they
// make the lookup allocation-free.
type podKeys [2]string

func podScoped(key string) podKeys { return podKeys{key + "/pod", key} }

// podAnnotation finds the pod-scoped annotation and the key it found.
func podAnnotation(pod *api.PodSandbox, keys podKeys) (value, found string, ok bool) {
	annotations := pod.GetAnnotations()
	for _, k := range keys {
		if v, ok := annotations[k]; ok {
			return v, k, true
		}
	}
	return "", "", false
}
