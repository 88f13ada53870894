// SPDX-License-Identifier: Apache-2.0

package api

import (
	"errors"
	"testing"
)

func TestEventMaskSetClearIsSet(t *testing.T) {
	var m EventMask
	m.Set(Event_CREATE_CONTAINER, Event_STOP_CONTAINER, Event_UNKNOWN, Event_LAST, Event(-3)).Clear(Event_STOP_CONTAINER)
	if m != MaskOf(Event_CREATE_CONTAINER) {
		t.Errorf("mask = %#x, want only CreateContainer (non-events ignored)", int32(m))
	}
	if !m.IsSet(Event_CREATE_CONTAINER) || m.IsSet(Event_STOP_CONTAINER) || m.IsSet(Event_UNKNOWN) || m.IsSet(Event(99)) {
		t.Error("IsSet")
	}
}

func TestEventMaskPrettyString(t *testing.T) {
	for m, want := range map[EventMask]string{
		0: "",
		MaskOf(Event_RUN_POD_SANDBOX, Event_REMOVE_CONTAINER): "RunPodSandbox,RemoveContainer",
		MaskOf(Event_CREATE_CONTAINER) | 1<<20:                "CreateContainer,unknown(0x100000)",
	} {
		if got := m.PrettyString(); got != want {
			t.Errorf("PrettyString(%#x) = %q, want %q", int32(m), got, want)
		}
	}
	if Event_CREATE_CONTAINER.PrettyName() != "CreateContainer" || Event(99).PrettyName() != "unknown(99)" || Event_UNKNOWN.PrettyName() != "unknown(0)" {
		t.Error("PrettyName")
	}
}

func TestParseEventMaskGroups(t *testing.T) {
	pod := MaskOf(Event_RUN_POD_SANDBOX, Event_UPDATE_POD_SANDBOX, Event_POST_UPDATE_POD_SANDBOX, Event_STOP_POD_SANDBOX, Event_REMOVE_POD_SANDBOX)
	for _, c := range []struct {
		in   []string
		want EventMask
	}{
		{nil, 0},
		{[]string{"pod"}, pod},
		{[]string{"PodSandbox"}, pod},
		{[]string{"container"}, ValidEvents &^ pod},
		{[]string{"runpodsandbox", "stopcontainer, removecontainer"}, MaskOf(Event_RUN_POD_SANDBOX, Event_STOP_CONTAINER, Event_REMOVE_CONTAINER)},
	} {
		got, err := ParseEventMask(c.in...)
		if err != nil || got != c.want {
			t.Errorf("ParseEventMask(%q) = %#x, %v; want %#x", c.in, int32(got), err, int32(c.want))
		}
	}
	if _, err := ParseEventMask("createcontainer", "bogus"); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("unknown event: %v", err)
	}
	if MustParseEventMask("all") != AllEvents {
		t.Error("MustParseEventMask(all)")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParseEventMask of a bad list did not panic")
		}
	}()
	MustParseEventMask("bogus")
}
