// SPDX-License-Identifier: Apache-2.0

package api

import (
	"errors"
	"strings"
	"testing"
)

func TestEventMaskBits(t *testing.T) {
	tests := []struct {
		event Event
		mask  EventMask
	}{
		{Event_RUN_POD_SANDBOX, 0x0001},
		{Event_STOP_POD_SANDBOX, 0x0002},
		{Event_CREATE_CONTAINER, 0x0008},
		{Event_STOP_CONTAINER, 0x0200},
		{Event_POST_UPDATE_POD_SANDBOX, 0x1000},
		{Event_VALIDATE_CONTAINER_ADJUSTMENT, 0x2000},
		{Event_UNKNOWN, 0},
		{Event_LAST, 0},
	}
	for _, tt := range tests {
		if got := tt.event.Mask(); got != tt.mask {
			t.Errorf("%v.Mask() = 0x%x, want 0x%x", tt.event, got, tt.mask)
		}
	}
	if ValidEvents != 0x3FFF {
		t.Fatalf("ValidEvents = 0x%x, want 0x3fff", ValidEvents)
	}
}

func TestEffectiveMask(t *testing.T) {
	if m, err := EventMask(0).Effective(); err != nil || m != AllEvents {
		t.Fatalf("mask 0: got 0x%x, %v; want all events", m, err)
	}
	m := MaskOf(Event_CREATE_CONTAINER, Event_STOP_CONTAINER)
	if got, err := m.Effective(); err != nil || got != m {
		t.Fatalf("narrow mask changed: 0x%x, %v", got, err)
	}
	_, err := EventMask(0x4000 | 1).Effective()
	if !errors.Is(err, ErrInvalidEventMask) {
		t.Fatalf("mask with bit 14: err = %v, want ErrInvalidEventMask", err)
	}
	if _, err := EventMask(-1).Effective(); err == nil {
		t.Fatal("negative mask accepted")
	}
}

func TestParseEventMask(t *testing.T) {
	tests := []struct {
		in      string
		want    EventMask
		wantErr bool
	}{
		{"runpodsandbox,createcontainer", MaskOf(Event_RUN_POD_SANDBOX, Event_CREATE_CONTAINER), false},
		{"all", AllEvents, false},
		{"ALL", AllEvents, false},
		{" RUN_POD_SANDBOX , StopContainer", MaskOf(Event_RUN_POD_SANDBOX, Event_STOP_CONTAINER), false},
		{"validatecontaineradjustment", MaskOf(Event_VALIDATE_CONTAINER_ADJUSTMENT), false},
		{"unknown", 0, true},
		{"last", 0, true},
		{"createcontainer,,stopcontainer", 0, true},
		{"", 0, true},
		{"bogus", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseEventMask(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseEventMask(%q) = 0x%x, %v; want 0x%x, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestEventMaskStringRoundTrip(t *testing.T) {
	for m := EventMask(1); m <= ValidEvents; m = m*3 + 1 {
		m &= ValidEvents
		back, err := ParseEventMask(m.String())
		if err != nil || back != m {
			t.Fatalf("round trip of 0x%x via %q gave 0x%x, %v", m, m.String(), back, err)
		}
		if m == ValidEvents {
			break
		}
	}
	if s := MaskOf(Event_RUN_POD_SANDBOX, Event_REMOVE_CONTAINER).String(); s != "runpodsandbox,removecontainer" {
		t.Fatalf("String() = %q", s)
	}
}

func TestEventNames(t *testing.T) {
	if n := Event_POST_UPDATE_POD_SANDBOX.Name(); n != "PostUpdatePodSandbox" {
		t.Fatalf("Name() = %q", n)
	}
	if n := Event_VALIDATE_CONTAINER_ADJUSTMENT.ShortName(); n != "validatecontaineradjustment" {
		t.Fatalf("ShortName() = %q", n)
	}
}

func FuzzParseEventMask(f *testing.F) {
	for _, s := range []string{"all", "runpodsandbox,createcontainer", "", ",", "RUN_POD_SANDBOX", "x,all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseEventMask(s)
		if err != nil {
			return
		}
		if m&^ValidEvents != 0 {
			t.Fatalf("%q parsed to invalid mask 0x%x", s, m)
		}
		back, err := ParseEventMask(m.String())
		if m != 0 && (err != nil || back != m) {
			t.Fatalf("%q: 0x%x printed %q reparsed 0x%x, %v", s, m, m.String(), back, err)
		}
	})
}

// TestIsContainerEvent: the events whose request names a container, and
// no others.
func TestIsContainerEvent(t *testing.T) {
	for e := Event_UNKNOWN; e <= Event_LAST; e++ {
		want := strings.HasSuffix(e.String(), "_CONTAINER")
		if got := e.IsContainerEvent(); got != want {
			t.Errorf("%v.IsContainerEvent() = %v, want %v", e, got, want)
		}
	}
}
