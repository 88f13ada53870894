// SPDX-License-Identifier: Apache-2.0

// A plugin's kind, the phases of its joining, and the reasons it leaves for.

package nri

// Kind is how a plugin came to be connected.
type Kind int

const (
	External     Kind = iota // connected to the socket
	Preinstalled             // launched from the plugin path
	Builtin                  // in-process, added by the runtime
	WASM                     // a WebAssembly module from the plugin path, in-process
)

// String names the kind as operators read it: "external", "pre-installed",
// "builtin", "wasm".
func (k Kind) String() string {
	return [...]string{"external", "pre-installed", "builtin", "wasm"}[k]
}

// The phases of joining, as a PluginError's Op and a Change's Phase name
// them when a plugin fails before it takes events.
const (
	PhaseStart       = "start"
	PhaseRegister    = "register"
	PhaseConfigure   = "configure"
	PhaseSynchronize = "synchronize"
)

// Unregistered names an external plugin that failed before it said who it
// is.
const Unregistered = "unregistered"

// Reasons a plugin leaves for, in its Shutdown request and its Change.
const (
	ReasonRuntimeStopping = "runtime shutting down"
	ReasonReplaced        = "replaced" // by a new instance with the same index and name
	ReasonRestarted       = "restarted"
)
