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
	annotations := pod.GetAnnotations()
	for _, k := range []string{key + "/container." + container, key + "/pod", key} {
		if v, ok := annotations[k]; ok {
			return v, k, true
		}
	}
	return "", "", false
}
