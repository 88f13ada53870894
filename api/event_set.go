// SPDX-License-Identifier: Apache-2.0

package api

import (
	"fmt"
	"strings"
)

// The reference's event-mask helpers, under its names.

// Set adds the events to the mask and returns it; values that are not
// subscribable events are ignored (the reference sets a stray bit or
// panics).
func (m *EventMask) Set(events ...Event) *EventMask {
	for _, e := range events {
		*m |= e.Mask()
	}
	return m
}

// Clear removes the events from the mask and returns it.
func (m *EventMask) Clear(events ...Event) *EventMask {
	for _, e := range events {
		*m &^= e.Mask()
	}
	return m
}

// IsSet tells whether the mask subscribes to e (the same as Has).
func (m EventMask) IsSet(e Event) bool {
	return m.Has(e)
}

// PrettyString lists the mask's events by their CamelCase names, separated
// by commas, then any bits that name no event as "unknown(0x...)". An empty
// mask gives "".
func (m EventMask) PrettyString() string {
	names := make([]string, 0, Event_LAST)
	for _, e := range m.Events() {
		names = append(names, e.PrettyName())
	}
	if extra := m &^ ValidEvents; extra != 0 {
		names = append(names, fmt.Sprintf("unknown(0x%x)", uint32(extra)))
	}
	return strings.Join(names, ",")
}

// PrettyName is the event's CamelCase name ("RunPodSandbox"), or
// "unknown(N)" for a value that is not an event.
func (e Event) PrettyName() string {
	if e.Subscribable() {
		return e.Name()
	}
	return fmt.Sprintf("unknown(%d)", int32(e))
}
