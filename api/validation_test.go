// SPDX-License-Identifier: Apache-2.0

package api

import (
	"strings"
	"testing"
)

func TestValidationHelpers(t *testing.T) {
	req := &ValidateContainerAdjustmentRequest{Plugins: []*PluginInstance{{Name: "a", Index: "10"}, {Name: "b", Index: "20"}}}
	m := req.GetPluginMap()
	if len(m) != 4 || m["10-a"].GetIndex() != "10" || m["a"].GetName() != "a" || m["a"].GetIndex() != "" {
		t.Errorf("GetPluginMap = %v", m)
	}
	if (*ValidateContainerAdjustmentRequest)(nil).GetPluginMap() != nil {
		t.Error("nil request gave a map")
	}
	if err := (&ValidateContainerAdjustmentResponse{}).ValidationResult("10-v"); err != nil {
		t.Errorf("accepted: %v", err)
	}
	err := (&ValidateContainerAdjustmentResponse{Reject: true, Reason: "no hooks"}).ValidationResult("10-v")
	if err == nil || !strings.Contains(err.Error(), `"10-v"`) || !strings.Contains(err.Error(), "no hooks") {
		t.Errorf("rejected: %v", err)
	}
}
