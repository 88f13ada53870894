// SPDX-License-Identifier: Apache-2.0

package validator_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// pluginList is a YAML list of n plugin names, p0 to p<n-1>.
func pluginList(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprint("p", i)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// TestRequiredPluginsListBounded: a pod annotation that lists more than
// MaxRequiredPlugins plugins is refused with a short error saying how many,
// at pod start and at each container's creation alike. A pod author could
// list 40,000 (195 KB, under Kubernetes' 256 KiB limit): the list cost
// seconds of the runtime's CPU, under its lock, and an error of a megabyte.
func TestRequiredPluginsListBounded(t *testing.T) {
	v := validator.NewDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"p1"}})
	pod := &api.PodSandbox{Annotations: map[string]string{validator.RequiredPlugins: pluginList(40000)}}
	_, err := v.ForPod(pod)
	if err == nil || !strings.Contains(err.Error(), "lists 40000 plugins") || len(err.Error()) > 200 {
		t.Errorf("ForPod: %v, want a short error saying it lists 40000 plugins", err)
	}
	err = v.ValidateContainerAdjustment(t.Context(), &api.ValidateContainerAdjustmentRequest{
		Pod: pod, Container: &api.Container{Name: "app"},
	})
	if !errors.Is(err, validator.ErrValidation) || !strings.Contains(err.Error(), "lists 40000 plugins") || len(err.Error()) > 200 {
		t.Errorf("the creation: %v; want rejected with a short reason saying it lists 40000 plugins", err)
	}

	pod.Annotations[validator.RequiredPlugins] = pluginList(validator.MaxRequiredPlugins)
	req, err := v.ForPod(pod)
	if err != nil || len(req.Plugins) != validator.MaxRequiredPlugins {
		t.Errorf("ForPod of %d plugins (p1 configured too): %d plugins, %v; want them all once", validator.MaxRequiredPlugins, len(req.Plugins), err)
	}
}

// TestRequiredPluginsNamedOnce: a plugin required twice, or by the
// configuration and the annotation, is named once, and a long list of the
// missing ones is cut after the first 8.
func TestRequiredPluginsNamedOnce(t *testing.T) {
	v := validator.NewDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"p1", "p1"}})
	pod := &api.PodSandbox{Annotations: map[string]string{validator.RequiredPlugins: "[p1, p2, p2, p1]"}}
	err := v.ValidateContainerAdjustment(t.Context(), &api.ValidateContainerAdjustmentRequest{Pod: pod, Container: &api.Container{Name: "app"}})
	if err == nil || strings.Count(err.Error(), `"p1"`) != 1 || strings.Count(err.Error(), `"p2"`) != 1 {
		t.Errorf("rejection %v, want p1 and p2 named once each", err)
	}
	pod.Annotations[validator.RequiredPlugins] = pluginList(100)
	err = v.ValidateContainerAdjustment(t.Context(), &api.ValidateContainerAdjustmentRequest{Pod: pod, Container: &api.Container{Name: "app"}})
	if err == nil || !strings.Contains(err.Error(), "and 91 more") || len(err.Error()) > 400 {
		t.Errorf("rejection %v, want the first missing plugins named, then \"and 91 more\"", err)
	}
}
