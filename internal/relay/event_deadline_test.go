// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"context"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// TestCallBudgets: each call's share of the event's deadline D.
func TestCallBudgets(t *testing.T) {
	p := newPlugin("10", "p", nri.Builtin, nil, inProcessConn{}, logrus.NewEntry(logrus.New()))
	in := func(d time.Duration) eventDeadline { return eventDeadline{at: time.Now().Add(d)} }
	tests := []struct {
		name      string
		own       time.Duration
		budget    func() callBudget
		want      time.Duration
		wantCut   bool
		tolerance time.Duration
	}{
		{"no deadline: the own timeout", 2 * time.Second, func() callBudget { return eventDeadline{}.forOptional(p, time.Hour) }, 2 * time.Second, false, 0},
		{"mandatory: capped by D", 2 * time.Second, func() callBudget { return in(time.Second).forMandatory(p) }, time.Second, true, 100 * time.Millisecond},
		{"mandatory: own timeout within D", time.Second, func() callBudget { return in(time.Minute).forMandatory(p) }, time.Second, false, 0},
		{"optional: leaves the mandatory plugins' time", 5 * time.Second, func() callBudget { return in(2900*time.Millisecond).forOptional(p, time.Second) }, 1900 * time.Millisecond, true, 100 * time.Millisecond},
		{"optional: never under the floor", 5 * time.Second, func() callBudget { return in(time.Second).forOptional(p, time.Minute) }, minOptionalCall, true, 0},
		{"optional: the floor stays within D", 5 * time.Second, func() callBudget { return in(30*time.Millisecond).forOptional(p, time.Minute) }, 30 * time.Millisecond, true, 30 * time.Millisecond},
		{"optional: own timeout when it fits", 100 * time.Millisecond, func() callBudget { return in(time.Minute).forOptional(p, time.Second) }, 100 * time.Millisecond, false, 0},
		{"D passed: nothing", time.Second, func() callBudget { return eventDeadline{at: time.Now().Add(-time.Second)}.forOptional(p, 0) }, -time.Second, true, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		p.timeout = tt.own
		got := tt.budget()
		if got.cut != tt.wantCut || got.timeout > tt.want || got.timeout < tt.want-tt.tolerance {
			t.Errorf("%s: %+v, want %v (cut %v)", tt.name, got, tt.want, tt.wantCut)
		}
	}
}

// TestEventDeadlineOnlyWhenSet: no caller deadline and no budget give no D
// (the fast path); a budget or a caller's deadline, less the reserve, does;
// teardown events never have one.
func TestEventDeadlineOnlyWhenSet(t *testing.T) {
	a := &Relay{cfg: Config{DeadlineReserve: 100 * time.Millisecond}}
	setup, teardown := policyOf(api.Event_CREATE_CONTAINER), policyOf(api.Event_STOP_CONTAINER)
	if d := a.deadlineOf(context.Background(), setup); d.set() {
		t.Errorf("no deadline and no budget gave D %v", d.at)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	caller, _ := ctx.Deadline()
	if d := a.deadlineOf(ctx, setup); !d.at.Equal(caller.Add(-a.cfg.DeadlineReserve)) {
		t.Errorf("caller deadline %v gave D %v, want it less the reserve", caller, d.at)
	}
	if d := a.deadlineOf(ctx, teardown); d.set() {
		t.Errorf("a teardown event got D %v", d.at)
	}
	a.cfg.EventBudget = 300 * time.Millisecond
	before := time.Now()
	if d := a.deadlineOf(ctx, setup); d.at.Before(before.Add(200*time.Millisecond)) || d.at.After(time.Now().Add(200*time.Millisecond)) {
		t.Errorf("a 300 ms budget under a 1 s caller deadline gave D in %v", d.at.Sub(before))
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = a.deadlineOf(context.Background(), setup) }); allocs != 0 {
		t.Errorf("computing D allocates %v times", allocs)
	}
}

// TestShortCallerDeadlineSharesTheReserve: a caller's deadline that leaves
// less than twice the reserve gives the plugins half of what is left (D
// moves steadily with the caller's deadline); a longer one leaves the
// whole reserve; one already passed leaves D there; a budget always leaves
// the whole reserve.
func TestShortCallerDeadlineSharesTheReserve(t *testing.T) {
	a := &Relay{cfg: Config{DeadlineReserve: 100 * time.Millisecond}}
	setup := policyOf(api.Event_RUN_POD_SANDBOX)
	for _, tt := range []struct {
		left, wantD time.Duration
	}{
		{25 * time.Millisecond, 12500 * time.Microsecond},
		{150 * time.Millisecond, 75 * time.Millisecond},
		{200 * time.Millisecond, 100 * time.Millisecond},
		{time.Second, 900 * time.Millisecond},
		{-time.Second, -time.Second},
	} {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(tt.left))
		caller, _ := ctx.Deadline()
		d := a.deadlineOf(ctx, setup)
		cancel()
		want := caller.Add(tt.wantD - tt.left)
		if diff := d.at.Sub(want); diff < -5*time.Millisecond || diff > 5*time.Millisecond || d.byBudget {
			t.Errorf("caller's deadline in %v: D %v off the expected %v from now (by budget %v)", tt.left, diff, tt.wantD, d.byBudget)
		}
	}
	a.cfg.EventBudget = 150 * time.Millisecond
	before := time.Now()
	if d := a.deadlineOf(context.Background(), setup); !d.byBudget || d.at.Sub(before) > 50*time.Millisecond+5*time.Millisecond {
		t.Errorf("a 150 ms budget gave D in %v (by budget %v), want 50 ms: the whole reserve", d.at.Sub(before), d.byBudget)
	}
}
