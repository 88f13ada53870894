// SPDX-License-Identifier: Apache-2.0

package validator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// FuzzValidate: whatever a pod's annotations and the owner tables say, the
// validator answers with a verdict, never a panic, and a rejection always
// says why.
func FuzzValidate(f *testing.F) {
	f.Add("[a, b]", "true", "10-a,20-b", "network", "-net.x", "a")
	f.Add("- a\n- 10-b\n", "maybe", "-10-a", "-pid", "kernel.y", "")
	f.Add("{", "", "", "", "", "10-a")
	f.Add("[~, 1, {x: y}]", "FALSE", ",", "-", "-", "-a")
	f.Fuzz(func(t *testing.T, required, tolerate, hooks, ns, sysctl, plugin string) {
		cfg := &validator.DefaultValidatorConfig{
			RejectOCIHookAdjustment: true, RejectUnconfinedSeccompAdjustment: true,
			RejectNamespaceAdjustment: true, RejectSysctlAdjustment: true,
			RequiredPlugins: []string{"a"}, TolerateMissingAnnotation: "tolerate",
		}
		pod := &api.PodSandbox{Annotations: map[string]string{
			validator.RequiredPlugins + "/pod": required,
			"tolerate/container.app":           tolerate,
		}}
		owners := &api.FieldOwners{
			Simple: map[int32]string{int32(api.Field_OciHooks): hooks, int32(api.Field_SeccompPolicy): plugin},
			Compound: map[int32]*api.CompoundFieldOwners{
				int32(api.Field_Namespace): {Owners: map[string]string{ns: plugin}},
				int32(api.Field_Sysctl):    {Owners: map[string]string{sysctl: plugin}},
			},
		}
		req := &api.ValidateContainerAdjustmentRequest{
			Pod:       pod,
			Container: &api.Container{Id: "c", Name: "app"},
			Owners:    &api.OwningPlugins{Owners: map[string]*api.FieldOwners{"c": owners}},
			Plugins:   []*api.PluginInstance{{Index: "10", Name: plugin}},
		}
		err := validator.NewDefaultValidator(cfg).ValidateContainerAdjustment(context.Background(), req)
		if err != nil && (!strings.Contains(err.Error(), ": container /") || strings.HasSuffix(err.Error(), ": ")) {
			t.Fatalf("rejection without the container or a reason: %v", err)
		}
	})
}
