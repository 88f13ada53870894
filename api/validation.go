// SPDX-License-Identifier: Apache-2.0

package api

import "fmt"

// GetPluginMap returns the plugins a validator is told about (those that
// took part in the creation), keyed both by "idx-name" and by the name
// alone, as the reference keys them; an entry under the bare name carries
// the name only. A nil request gives nil.
func (v *ValidateContainerAdjustmentRequest) GetPluginMap() map[string]*PluginInstance {
	if v == nil {
		return nil
	}
	plugins := make(map[string]*PluginInstance, 2*len(v.Plugins))
	for _, p := range v.Plugins {
		plugins[p.GetName()] = &PluginInstance{Name: p.GetName()}
		plugins[PluginID(p.GetIndex(), p.GetName())] = p
	}
	return plugins
}

// ValidationResult turns a validator's answer into an error naming the
// validator and its reason, or nil when it accepted.
func (v *ValidateContainerAdjustmentResponse) ValidationResult(plugin string) error {
	if !v.GetReject() {
		return nil
	}
	reason := v.GetReason()
	if reason == "" {
		reason = "no reason given"
	}
	return fmt.Errorf("nrikit: validator %q rejected the container adjustment: %s", plugin, reason)
}
