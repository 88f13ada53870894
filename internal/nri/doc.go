// SPDX-License-Identifier: Apache-2.0

// Package nri holds the few values that nrikit's components share to speak
// of plugins: how a plugin came to be connected ([Kind]), the phases of its
// joining, how one call to it ended ([Outcome]), its failure policy, a change
// in the set of plugins ([Change]) and a plugin's failure of a phase
// ([PluginError]). It owns no state and imports nothing of nrikit's.
//
// The public package adaptation declares its own forms of these for
// runtimes (PluginChange, Outcome, FailurePolicy, PluginError) and converts
// at its boundary; their JSON names and texts are the same.
package nri
