// SPDX-License-Identifier: Apache-2.0

// Reading Status's JSON back: the types whose JSON form is not their Go shape.

package adaptation

import (
	"encoding/json"
	"fmt"

	"github.com/nrikit/nrikit/api"
)

// UnmarshalText reads a deprecation as MarshalText writes it, so that a
// Status read from JSON (the status socket's) keeps its deprecations.
func (d *Deprecation) UnmarshalText(text []byte) error {
	for _, known := range []Deprecation{DeprecatedStateChange} {
		if string(text) == known.String() {
			*d = known
			return nil
		}
	}
	return fmt.Errorf("nrikit: unknown deprecation %q", text)
}

// UnmarshalJSON reads a deprecation as MarshalJSON writes it, events by
// name.
func (d *PluginDeprecation) UnmarshalJSON(data []byte) error {
	var v pluginDeprecationJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	events := make([]api.Event, 0, len(v.Events))
	for _, name := range v.Events {
		ev, err := api.ParseEvent(name)
		if err != nil {
			return fmt.Errorf("nrikit: deprecation of %s: %w", v.Plugin, err)
		}
		events = append(events, ev)
	}
	*d = PluginDeprecation{Plugin: v.Plugin, Deprecation: v.Deprecation, Events: events, Since: v.Since}
	return nil
}
