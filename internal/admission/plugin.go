// SPDX-License-Identifier: Apache-2.0

// What admission asks of the caller's plugins, and the worst case of an event's calls to them.

package admission

import (
	"time"

	"github.com/nrikit/nrikit/api"
)

// Plugin is what admission needs of a plugin: who it is, which events it
// takes, and how long one call to it may take (its own timeout).
type Plugin interface {
	comparable
	ID() string
	Takes(api.Event) bool
	Timeout() time.Duration
}

// WorstCase is how long ev's plugin calls may take with plugins active:
// the sum of the own timeouts of those subscribed to it, plus the slowest
// validator's for CreateContainer.
func WorstCase[P Plugin](ev api.Event, plugins []P) time.Duration {
	var sum time.Duration
	for _, p := range plugins {
		if p.Takes(ev) {
			sum += p.Timeout()
		}
	}
	if ev == api.Event_CREATE_CONTAINER {
		sum += SlowestTimeout(ValidatorsAmong(plugins)) // as an event's deadline sets it aside
	}
	return sum
}

// SlowestTimeout is the longest own timeout of plugins, 0 if none.
func SlowestTimeout[P Plugin](plugins []P) time.Duration {
	var slowest time.Duration
	for _, p := range plugins {
		slowest = max(slowest, p.Timeout())
	}
	return slowest
}

// ValidatorsAmong lists the validators of plugins, in order.
func ValidatorsAmong[P Plugin](plugins []P) []P {
	var validators []P
	for _, p := range plugins {
		if p.Takes(api.Event_VALIDATE_CONTAINER_ADJUSTMENT) {
			validators = append(validators, p)
		}
	}
	return validators
}
