// SPDX-License-Identifier: Apache-2.0

// Recording plugins' deprecated behaviour (Deprecations).

package adaptation

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/relay"
)

// Deprecation is a kind of deprecated plugin behaviour. Values and texts are
// the reference's, so a runtime's recorder can map them one to one.
type Deprecation int

const (
	// DeprecatedStateChange: the plugin takes an event only through the old
	// multiplexed StateChange call, not its dedicated RPC.
	DeprecatedStateChange Deprecation = iota + 1
)

// String is the deprecation's text, the reference's.
func (d Deprecation) String() string {
	switch d {
	case DeprecatedStateChange:
		return "deprecated StateChange"
	}
	return "unknown deprecation"
}

// MarshalText writes the deprecation's text, for JSON reports.
func (d Deprecation) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// DeprecationRecorder receives deprecation warnings; it has the reference's
// shape: a recorder written against this package's Deprecation compiles
// unchanged; one typed against the reference's own Deprecation needs a
// one-line adapter, since Go interfaces need identical types.
type DeprecationRecorder interface {
	PluginWarning(ctx context.Context, d Deprecation, plugin, details string)
}

// PluginDeprecation is one connected plugin's deprecated behaviour, for
// operators.
type PluginDeprecation struct {
	Plugin      string      `json:"plugin"`
	Deprecation Deprecation `json:"deprecation"`
	Events      []api.Event `json:"events"`
	Since       time.Time   `json:"since"`
}

// MarshalJSON writes event names rather than numbers.
func (d PluginDeprecation) MarshalJSON() ([]byte, error) {
	names := make([]string, len(d.Events))
	for i, ev := range d.Events {
		names[i] = ev.Name()
	}
	return json.Marshal(pluginDeprecationJSON{d.Plugin, d.Deprecation, names, d.Since})
}

// pluginDeprecationJSON is PluginDeprecation's JSON form, written by
// MarshalJSON and read by UnmarshalJSON.
type pluginDeprecationJSON struct {
	Plugin      string      `json:"plugin"`
	Deprecation Deprecation `json:"deprecation"`
	Events      []string    `json:"events"`
	Since       time.Time   `json:"since"`
}

// DeprecatedEvent tells which event a deprecation warning is about: the
// context nrikit hands a DeprecationRecorder carries it, so that a recorder
// need not parse the details. Its Name() is the form the logs use
// ("RunPodSandbox").
func DeprecatedEvent(ctx context.Context) (api.Event, bool) { return relay.DeprecatedEvent(ctx) }
