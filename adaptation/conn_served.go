// SPDX-License-Identifier: Apache-2.0

// The Runtime calls served on a plugin connection, for the guard's allow-list.

package adaptation

// runtimeCalls lists the calls nrikit serves in every revision's Runtime
// service on a plugin's connection; the guard reports requests for anything
// else, which ttrpc answers with Unimplemented. It must follow what each
// revision's register serves (TestServedMethodsAreRegistered).
var runtimeCalls = map[string]bool{"RegisterPlugin": true, "UpdateContainers": true}

func servesRuntime(service, method string) bool {
	for _, r := range revisions {
		if r.runtimeService == service {
			return runtimeCalls[method]
		}
	}
	return false
}
