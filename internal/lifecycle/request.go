// SPDX-License-Identifier: Apache-2.0

// The pod and container a runtime request names.

package lifecycle

import "github.com/nrikit/nrikit/api"

type podRequest interface{ GetPod() *api.PodSandbox }
type containerRequest interface{ GetContainer() *api.Container }

// PodID is the id of the pod a request names: its pod's, or its
// container's pod's; "" if it names none.
func PodID(req any) string {
	if r, ok := req.(podRequest); ok && r.GetPod() != nil {
		return r.GetPod().GetId()
	}
	if r, ok := req.(containerRequest); ok {
		return r.GetContainer().GetPodSandboxId()
	}
	return ""
}

// ContainerID is the id of the container a request names, "" if it names
// none.
func ContainerID(req any) string {
	if r, ok := req.(containerRequest); ok {
		return r.GetContainer().GetId()
	}
	return ""
}

// podOf is the pod a request carries, nil if none.
func podOf(req any) *api.PodSandbox {
	if r, ok := req.(podRequest); ok {
		return r.GetPod()
	}
	return nil
}
