// SPDX-License-Identifier: Apache-2.0

// A plugin's failure of one event or phase.

package nri

import (
	"fmt"
	"strings"
)

// PluginError is a plugin's failure of one event or of a phase of its
// joining.
type PluginError struct {
	Plugin   string // "NN-name"
	Op       string // an event's name ("CreateContainer") or a phase ("register")
	Revision string // the protocol revision it registered on, if it did
	Err      error
}

func (e *PluginError) Error() string { return PluginErrorText(e.Plugin, e.Op, e.Err) }

func (e *PluginError) Unwrap() error { return e.Err }

// PluginErrorText is how a plugin's failure reads: "nrikit: plugin
// 10-foo: CreateContainer: cause". The cause's own "nrikit: " prefix is not
// repeated.
func PluginErrorText(plugin, op string, err error) string {
	return fmt.Sprintf("nrikit: plugin %s: %s: %s", plugin, op, strings.TrimPrefix(err.Error(), "nrikit: "))
}
