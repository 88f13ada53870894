// SPDX-License-Identifier: Apache-2.0

// BuiltinPlugin: an in-process plugin the runtime links in.

package adaptation

import (
	"fmt"

	"github.com/nrikit/nrikit/api"
)

// BuiltinPlugin is an in-process plugin: a Go value serving the Plugin
// service, ordered with the other plugins by Index and Name. A Handler that
// embeds api.PluginBase implements only the events it takes.
type BuiltinPlugin struct {
	Index   string
	Name    string
	Config  string // handed to it in Configure
	Handler api.PluginService
	// Filter, if set, is its scope of pods (see PluginFilter), unless the
	// operator's plugin_settings give it one.
	Filter *PluginFilter
}

func (b BuiltinPlugin) validate() error {
	if err := api.ValidatePluginIdentity(b.Index, b.Name); err != nil {
		return err
	}
	if b.Handler == nil {
		return fmt.Errorf("nrikit: builtin plugin %s has no handler", api.PluginID(b.Index, b.Name))
	}
	if _, err := b.Filter.selector(); err != nil {
		return fmt.Errorf("nrikit: builtin plugin %s: filter.%w", api.PluginID(b.Index, b.Name), err)
	}
	return nil
}
