// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/nrikit/nrikit/api"
)

// Chaos makes a plugin misbehave at random on event calls (not on Configure,
// Synchronize or Shutdown), each call on its own roll: fail with an error,
// hang until the runtime gives up, or exit the process. Chances are
// fractions of one (0.001 is one call in a thousand).
type Chaos struct {
	Fail float64 `json:"fail,omitempty"`
	Hang float64 `json:"hang,omitempty"`
	Exit float64 `json:"exit,omitempty"`
	// FailEvents limits failures to these events (api.ParseEventMask form);
	// empty means every event.
	FailEvents string `json:"fail_events,omitempty"`
	// Seed makes the rolls repeatable; the process id is mixed in, so that
	// restarted instances do not repeat each other.
	Seed uint64 `json:"seed,omitempty"`
}

func (c *Chaos) validate() error {
	if c == nil {
		return nil
	}
	for _, p := range []float64{c.Fail, c.Hang, c.Exit} {
		if p < 0 || p > 1 {
			return fmt.Errorf("%w: chaos chance %v outside [0, 1]", ErrConfig, p)
		}
	}
	if c.FailEvents != "" {
		if _, err := api.ParseEventMask(c.FailEvents); err != nil {
			return fmt.Errorf("%w: chaos fail_events: %w", ErrConfig, err)
		}
	}
	return nil
}

// dice rolls a Chaos for one process.
type dice struct {
	mu       sync.Mutex
	rng      *rand.Rand
	c        Chaos
	failMask api.EventMask
}

func newDice(c *Chaos) *dice {
	if c == nil {
		return nil
	}
	mask := api.AllEvents
	if c.FailEvents != "" {
		mask, _ = api.ParseEventMask(c.FailEvents)
	}
	return &dice{rng: rand.New(rand.NewPCG(c.Seed, uint64(os.Getpid()))), c: *c, failMask: mask}
}

// roll turns b into what this call does; keys that are not events keep b.
func (d *dice) roll(key string, b behaviour) behaviour {
	if d == nil {
		return b
	}
	ev, ok := eventByName(key)
	if !ok {
		return b
	}
	d.mu.Lock()
	r := d.rng.Float64()
	d.mu.Unlock()
	switch {
	case r < d.c.Exit:
		b.Exit = 3
	case r < d.c.Exit+d.c.Hang:
		b.Hang = true
	case r < d.c.Exit+d.c.Hang+d.c.Fail && d.failMask.Has(ev):
		b.Fail = "chaos: " + key + " failed on purpose"
	}
	return b
}

func eventByName(name string) (api.Event, bool) {
	for e := api.Event_RUN_POD_SANDBOX; e < api.Event_LAST; e++ {
		if e.Name() == name {
			return e, true
		}
	}
	return api.Event_UNKNOWN, false
}
