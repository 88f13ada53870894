// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"
)

// notifyInto is a Config edit whose callback sends each flip to a channel.
func notifyInto(flips chan<- State) func(*Config) {
	return func(c *Config) { c.Notify = func(s State) { flips <- s } }
}

// nextFlip is the next flip the callback got.
func nextFlip(t *testing.T, flips <-chan State) State {
	t.Helper()
	select {
	case s := <-flips:
		return s
	case <-time.After(waitLimit):
		t.Fatal("no flip delivered")
	}
	return State{}
}

// Each flip reaches the callback in order, with the missing plugins' stories
// when not ready; joins and departures that flip nothing are not told.
func TestFlipsAreDeliveredInOrder(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	flips := make(chan State, 16)
	f := newFixture(t, 0, notifyInto(flips))
	f.Starting() // not ready, as before: no flip
	f.join("20-other")
	f.join(gateID)
	up := nextFlip(t, flips)
	if !up.Ready || len(up.Missing) != 0 || len(up.Required) != 1 || up.Required[0] != gateName {
		t.Errorf("first flip %+v, want ready with gate required", up)
	}
	f.leave("20-other", "connection lost")
	f.leave(gateID, "connection lost")
	down := nextFlip(t, flips)
	if down.Ready || !down.Since.After(up.Since) || len(down.Missing) != 1 || down.Missing[0].State != Left ||
		down.Missing[0].Plugin != gateID || down.Missing[0].Reason != "connection lost" {
		t.Errorf("second flip %+v, want not ready, gate left", down)
	}
	f.join(gateID)
	if s := nextFlip(t, flips); !s.Ready {
		t.Errorf("third flip %+v, want ready", s)
	}
	f.Stopping()
	if s := nextFlip(t, flips); s.Ready {
		t.Errorf("flip at Stopping %+v, want not ready", s)
	}
	f.Deliveries().Wait()
	select {
	case s := <-flips:
		t.Errorf("a flip more: %+v", s)
	default:
	}
}

// A callback slower than the flips gets the last one, and the ones kept
// still alternate: the oldest pair is let go first.
func TestTheLastFlipIsAlwaysDelivered(t *testing.T) {
	release := make(chan struct{})
	var got []State
	f := newFixture(t, 0, func(c *Config) {
		c.Notify = func(s State) {
			<-release
			got = append(got, s) // one delivery goroutine at a time
		}
	})
	f.Starting()
	const n = 2*maxPendingFlips + 7 // flips queued while the first is held
	for i := range n {
		if i%2 == 0 {
			f.join(gateID)
		} else {
			f.leave(gateID, "connection lost")
		}
	}
	close(release)
	f.Deliveries().Wait()
	if len(got) > maxPendingFlips+1 || len(got) < 2 {
		t.Fatalf("%d flips delivered of %d, want at most %d", len(got), n, maxPendingFlips+1)
	}
	for i, s := range got {
		if want := i%2 == 0; s.Ready != want {
			t.Fatalf("flip %d is ready=%v, want the flips to alternate: %+v", i, s.Ready, got)
		}
	}
	if last := got[len(got)-1]; last.Ready != f.State().Ready || last.Ready != (n%2 == 1) {
		t.Errorf("the last flip delivered is ready=%v, the tracker's %v", last.Ready, f.State().Ready)
	}
}

// A panic in the callback is logged and recovered, and the next flip is
// delivered.
func TestAPanicInTheCallbackIsRecovered(t *testing.T) {
	flips := make(chan State, 4)
	f := newFixture(t, 0, func(c *Config) {
		c.Notify = func(s State) {
			if s.Ready {
				panic("runtime bug")
			}
			flips <- s
		}
	})
	f.Starting()
	f.join(gateID)
	f.leave(gateID, "connection lost")
	if s := nextFlip(t, flips); s.Ready {
		t.Errorf("flip after the panic %+v, want not ready", s)
	}
	f.Deliveries().Wait()
	var logged []*logrus.Entry
	for _, e := range f.log.AllEntries() {
		if e.Message == "nrikit: the runtime's ReadinessChanges callback panicked" {
			logged = append(logged, e)
		}
	}
	if len(logged) != 1 || logged[0].Level != logrus.ErrorLevel || logged[0].Data["ready"] != true ||
		!strings.Contains(logged[0].Data["stack"].(string), "flips_test.go") ||
		!strings.Contains(logged[0].Data[logrus.ErrorKey].(error).Error(), "runtime bug") {
		t.Errorf("logged %+v, want one error line with the panic and its stack", logged)
	}
}

// Without a callback no goroutine is started.
func TestNoCallbackNoDelivery(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(t, 0)
	f.Starting()
	f.join(gateID)
	if !f.State().Ready {
		t.Error("not ready with the required plugin active")
	}
	f.leave(gateID, "connection lost")
	f.Stopping()
}
