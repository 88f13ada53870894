// SPDX-License-Identifier: Apache-2.0

package validator

import (
	"maps"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// The owner tables of a ValidateContainerAdjustmentRequest name the plugin
// ("idx-name") that set each field of a container. A plugin that removed a
// value is recorded as "-idx-name"; a plugin ID starts with a digit, so the
// mark cannot be confused with a name.

// fieldOwners is the owner table of the container being validated.
func fieldOwners(req *api.ValidateContainerAdjustmentRequest) *api.FieldOwners {
	return req.GetOwners().GetOwners()[req.GetContainer().GetId()]
}

// simpleOwner is the plugin that set (or cleared) a simple field. OCI hooks
// accumulate: their owner is a comma list of every plugin that added some.
func simpleOwner(fo *api.FieldOwners, f api.Field) (string, bool) {
	owner, ok := fo.GetSimple()[int32(f)]
	return pluginOf(owner), ok && owner != ""
}

// entryOwners maps each plugin that set or removed entries of a compound
// field to those entries' keys, sorted.
func entryOwners(fo *api.FieldOwners, f api.Field) map[string][]string {
	owners := fo.GetCompound()[int32(f)].GetOwners()
	if len(owners) == 0 {
		return nil
	}
	byPlugin := map[string][]string{}
	for _, key := range slices.Sorted(maps.Keys(owners)) {
		p := pluginOf(owners[key])
		byPlugin[p] = append(byPlugin[p], key)
	}
	return byPlugin
}

// pluginOf turns an owner entry into the plugin it names.
func pluginOf(owner string) string { return strings.TrimPrefix(owner, "-") }
