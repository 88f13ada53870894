// SPDX-License-Identifier: Apache-2.0

package api

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// EventMask is a plugin's event subscription: event e is bit e-1.
type EventMask int32

const (
	// ValidEvents has a bit for every subscribable event (1 to 14).
	ValidEvents EventMask = (1 << (Event_LAST - 1)) - 1
	// AllEvents is what a mask of 0 in ConfigureResponse stands for.
	AllEvents = ValidEvents
)

// MaskOf returns the mask with the bits of the given events set.
func MaskOf(events ...Event) EventMask {
	var m EventMask
	for _, e := range events {
		m |= e.Mask()
	}
	return m
}

// Mask returns the subscription bit of e, or 0 for values that are not
// subscribable events.
func (e Event) Mask() EventMask {
	if !e.Subscribable() {
		return 0
	}
	return 1 << (e - 1)
}

// Subscribable tells whether e is an event a plugin can subscribe to.
func (e Event) Subscribable() bool {
	return e > Event_UNKNOWN && e < Event_LAST
}

// IsContainerEvent tells whether e is about one container (its request
// names a container), rather than a pod.
func (e Event) IsContainerEvent() bool {
	switch e {
	case Event_CREATE_CONTAINER, Event_POST_CREATE_CONTAINER, Event_START_CONTAINER,
		Event_POST_START_CONTAINER, Event_UPDATE_CONTAINER, Event_POST_UPDATE_CONTAINER,
		Event_STOP_CONTAINER, Event_REMOVE_CONTAINER:
		return true
	}
	return false
}

// Has tells whether the mask subscribes to e.
func (m EventMask) Has(e Event) bool {
	return e.Subscribable() && m&e.Mask() != 0
}

// Events lists the subscribed events in ascending order.
func (m EventMask) Events() []Event {
	events := make([]Event, 0, bits.OnesCount32(uint32(m&ValidEvents)))
	for e := Event_RUN_POD_SANDBOX; e < Event_LAST; e++ {
		if m.Has(e) {
			events = append(events, e)
		}
	}
	return events
}

// Validate fails when the mask has bits that name no event.
func (m EventMask) Validate() error {
	if extra := m &^ ValidEvents; extra != 0 {
		return fmt.Errorf("%w: 0x%x has bits 0x%x outside 0x%x", ErrInvalidEventMask, uint32(m), uint32(extra), uint32(ValidEvents))
	}
	return nil
}

// Effective applies the protocol rule that a mask of 0 subscribes to every
// event, after checking that the mask is valid.
func (m EventMask) Effective() (EventMask, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if m == 0 {
		return AllEvents, nil
	}
	return m, nil
}

// String prints the mask as a comma-separated event list ("all" when every
// event is set), the same form ParseEventMask reads.
func (m EventMask) String() string {
	if m&ValidEvents == ValidEvents {
		return "all"
	}
	names := make([]string, 0, 14)
	for _, e := range m.Events() {
		names = append(names, e.ShortName())
	}
	return strings.Join(names, ",")
}

// ShortName is the lower-case event name used in event lists, e.g.
// "runpodsandbox".
func (e Event) ShortName() string {
	if e >= 0 && e <= Event_LAST {
		return shortNames[e]
	}
	return shortName(e)
}

// Name is the event's CamelCase name, as used for its RPC method, e.g.
// "RunPodSandbox".
func (e Event) Name() string {
	if e >= 0 && e <= Event_LAST {
		return camelNames[e]
	}
	return camelName(e)
}

// The names are made once: they label every log line and metric of the
// event path.
var shortNames, camelNames = eventNames()

func eventNames() (short, camel [Event_LAST + 1]string) {
	for e := Event_UNKNOWN; e <= Event_LAST; e++ {
		short[e], camel[e] = shortName(e), camelName(e)
	}
	return short, camel
}

// protoName reads the generated name table, which (unlike String) is ready
// during package initialization.
func protoName(e Event) string {
	if n, ok := Event_name[int32(e)]; ok {
		return n
	}
	return strconv.Itoa(int(e))
}

func shortName(e Event) string {
	return strings.ToLower(strings.ReplaceAll(protoName(e), "_", ""))
}

func camelName(e Event) string {
	parts := strings.Split(strings.ToLower(protoName(e)), "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

// ParseEventMask reads event lists such as "runpodsandbox,createcontainer"
// or "all", each argument a comma-separated list, as the reference does.
// Names are case-insensitive and may be written with or without underscores
// ("RUN_POD_SANDBOX"). Besides the event names and "all", "pod" (or
// "podsandbox") stands for every pod event and "container" for every
// container event (ValidateContainerAdjustment included). No argument gives
// an empty mask.
func ParseEventMask(lists ...string) (EventMask, error) {
	var m EventMask
	for _, list := range lists {
		for _, word := range strings.Split(list, ",") {
			bits, err := parseEventWord(strings.TrimSpace(word))
			if err != nil {
				return 0, fmt.Errorf("%w (in %q)", err, list)
			}
			m |= bits
		}
	}
	return m, nil
}

// MustParseEventMask is ParseEventMask for lists known to be valid: it
// panics on an error.
func MustParseEventMask(lists ...string) EventMask {
	m, err := ParseEventMask(lists...)
	if err != nil {
		panic(err)
	}
	return m
}

func parseEventWord(word string) (EventMask, error) {
	if word == "" {
		return 0, fmt.Errorf("%w: empty name", ErrUnknownEvent)
	}
	if e, err := ParseEvent(word); err == nil {
		return e.Mask(), nil
	}
	switch strings.ToLower(word) {
	case "all":
		return AllEvents, nil
	case "pod", "podsandbox":
		return eventsNamed("podsandbox"), nil
	case "container":
		return eventsNamed("container"), nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownEvent, word)
}

// eventsNamed is the mask of the events whose short name contains part.
func eventsNamed(part string) EventMask {
	var m EventMask
	for e := Event_RUN_POD_SANDBOX; e < Event_LAST; e++ {
		if strings.Contains(e.ShortName(), part) {
			m |= e.Mask()
		}
	}
	return m
}

// ParseEvent reads one subscribable event name.
func ParseEvent(name string) (Event, error) {
	key := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	for e := Event_RUN_POD_SANDBOX; e < Event_LAST; e++ {
		if e.ShortName() == key {
			return e, nil
		}
	}
	return Event_UNKNOWN, fmt.Errorf("%w: %q", ErrUnknownEvent, name)
}
