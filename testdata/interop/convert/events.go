// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"

	refapi "github.com/containerd/nri/pkg/api"

	"github.com/nrikit/nrikit/api"
)

var eventLists = map[string][]string{
	"none":             nil,
	"one":              {"runpodsandbox"},
	"list":             {"RunPodSandbox,StopContainer"},
	"two arguments":    {"createcontainer", "removecontainer,stoppodsandbox"},
	"all":              {"all"},
	"pod":              {"pod"},
	"podsandbox":       {"podsandbox"},
	"container":        {"container"},
	"validation":       {"validatecontaineradjustment"},
	"unknown":          {"bogus"},
	"empty name":       {"createcontainer,"},
	"upper case group": {"POD"},
}

// events compares the event-mask helpers.
func events(r *report) {
	each(r, "ParseEventMask", eventLists, func(in []string) error {
		m, err := api.ParseEventMask(in...)
		rm, rerr := refapi.ParseEventMask(in...)
		if (err == nil) != (rerr == nil) {
			return fmt.Errorf("error: nrikit %v, reference %v", err, rerr)
		}
		return sameValue(int32(m), int32(rm))
	})
	masks := map[string]int32{"empty": 0, "partial": 0b101, "all": int32(refapi.ValidEvents), "stray bits": 1<<20 | 1}
	each(r, "EventMask.PrettyString", masks, func(in int32) error {
		m, rm := api.EventMask(in), refapi.EventMask(in)
		return sameValue(m.PrettyString(), rm.PrettyString())
	})
	each(r, "EventMask.Set/Clear/IsSet", masks, func(in int32) error {
		m, rm := api.EventMask(in), refapi.EventMask(in)
		m.Set(api.Event_CREATE_CONTAINER, api.Event_STOP_POD_SANDBOX).Clear(api.Event_RUN_POD_SANDBOX)
		rm.Set(refapi.Event_CREATE_CONTAINER, refapi.Event_STOP_POD_SANDBOX).Clear(refapi.Event_RUN_POD_SANDBOX)
		errs := []error{sameValue(int32(m), int32(rm))}
		for e := int32(1); e < int32(refapi.Event_LAST); e++ {
			errs = append(errs, sameValue(m.IsSet(api.Event(e)), rm.IsSet(refapi.Event(e))))
		}
		return errors.Join(errs...)
	})
	for e := int32(0); e <= int32(refapi.Event_LAST)+1; e++ {
		r.check("Event.PrettyName", fmt.Sprint(e), sameValue(api.Event(e).PrettyName(), refapi.Event(e).PrettyName()))
	}
	r.check("ValidEvents", "value", sameValue(int32(api.ValidEvents), int32(refapi.ValidEvents)))
}
