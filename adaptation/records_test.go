// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// A container's record names the plugin of every field it set, the
// validators that approved it and the updates plugins made since; it goes
// with the container.
func TestContainerRecordNamesOwners(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(4))
	e.preinstall("10", "labels", testplugin.Config{Events: "createcontainer",
		Annotations: map[string]string{"team": "a"}, Env: map[string]string{"MODE": "fast"}})
	e.preinstall("20", "memory", testplugin.Config{Events: "createcontainer,updatecontainer",
		MemoryLimit: 1 << 30, UpdateMemoryLimit: 2 << 30})
	e.preinstall("30", "validator", testplugin.Config{Events: "validatecontaineradjustment"})
	e.start()
	e.waitPlugins("10-labels", "20-memory", "30-validator")
	ctx := context.Background()
	pod := testPod("cr")
	ctr := testContainer("cr-c1", pod)
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	must(t, err)

	rec, ok := e.a.ContainerRecord("cr-c1")
	if !ok {
		t.Fatal("no record of the created container")
	}
	want := []adaptation.FieldOwner{
		{Field: "Annotations", Key: "team", Plugin: "10-labels"},
		{Field: "Env", Key: "MODE", Plugin: "10-labels"},
		{Field: "MemLimit", Plugin: "20-memory"},
	}
	if !reflect.DeepEqual(rec.Fields, want) {
		t.Errorf("fields %+v, want %+v", rec.Fields, want)
	}
	if rec.ID != "cr-c1" || rec.PodID != "cr" || rec.Name != "ctr-cr-c1" || rec.Created.IsZero() {
		t.Errorf("record header %+v", rec)
	}
	if !reflect.DeepEqual(rec.Validation.Validators, []string{"30-validator"}) || rec.Validation.DefaultValidator {
		t.Errorf("validation %+v, want approved by 30-validator alone", rec.Validation)
	}

	_, err = e.a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: pod, Container: ctr,
		LinuxResources: &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}}}})
	must(t, err)
	rec, _ = e.a.ContainerRecord("cr-c1")
	if len(rec.Updates) != 1 {
		t.Fatalf("updates %+v, want 20-memory's", rec.Updates)
	}
	u := rec.Updates[0]
	if u.Plugin != "20-memory" || u.Source != adaptation.UpdateByReply ||
		!reflect.DeepEqual(u.Fields, []adaptation.FieldOwner{{Field: "MemLimit", Plugin: "20-memory"}}) {
		t.Errorf("update %+v, want 20-memory's memory limit in its UpdateContainer reply", u)
	}
	if _, err := json.Marshal(rec); err != nil {
		t.Fatal(err)
	}

	must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: ctr}))
	if _, ok := e.a.ContainerRecord("cr-c1"); ok {
		t.Error("the record outlived its container's removal")
	}
}

// Records are kept for the newest containers up to the cap; failed
// creations are not kept, and with records off nothing is.
func TestContainerRecordsBounded(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(2))
	e.preinstall("10", "labels", testplugin.Config{Events: "createcontainer", Annotations: map[string]string{"a": "b"}})
	e.preinstall("20", "picky", testplugin.Config{Events: "validatecontaineradjustment"})
	e.start()
	e.waitPlugins("10-labels", "20-picky")
	ctx := context.Background()
	pod := testPod("cb")
	for _, id := range []string{"cb-1", "cb-2", "cb-3"} {
		_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(id, pod)})
		must(t, err)
	}
	if _, ok := e.a.ContainerRecord("cb-1"); ok {
		t.Error("the oldest record was not evicted")
	}
	for _, id := range []string{"cb-2", "cb-3"} {
		if _, ok := e.a.ContainerRecord(id); !ok {
			t.Errorf("no record of %s", id)
		}
	}
	if n := e.a.Status().ContainerRecords; n != 2 {
		t.Errorf("status counts %d records, want 2", n)
	}

	off := newEnv(t, adaptation.WithContainerRecords(0))
	off.preinstall("10", "labels", testplugin.Config{Events: "createcontainer", Annotations: map[string]string{"a": "b"}})
	off.start()
	off.waitPlugins("10-labels")
	_, err := off.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("cb-off", pod)})
	must(t, err)
	if _, ok := off.a.ContainerRecord("cb-off"); ok {
		t.Error("a record kept with records off")
	}
}

// A creation a plugin fails is not recorded: its error names the plugin.
func TestContainerRecordNotKeptForFailedCreation(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(4))
	e.preinstall("10", "rejects", testplugin.Config{Events: "validatecontaineradjustment",
		Behaviours: map[string]testplugin.Behaviour{"ValidateContainerAdjustment": {Fail: "not on my watch"}}})
	e.start()
	e.waitPlugins("10-rejects")
	pod := testPod("cf")
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("cf-1", pod)})
	if err == nil || !strings.Contains(err.Error(), "10-rejects") {
		t.Fatalf("creation error %v, want one naming 10-rejects", err)
	}
	if _, ok := e.a.ContainerRecord("cf-1"); ok {
		t.Error("a failed creation was recorded")
	}
}

// A plugin's unsolicited update of a recorded container is in its record,
// with the fields it changed.
func TestContainerRecordUnsolicitedUpdate(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(4))
	calls := make(chan struct{}, 1)
	e.store.onUpdate = func(context.Context, []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) {
		select {
		case calls <- struct{}{}:
		default:
		}
		return nil, nil
	}
	e.preinstall("20", "pusher", testplugin.Config{Events: "createcontainer", UpdateLoop: &testplugin.UpdateLoop{}})
	e.start()
	e.waitPlugins("20-pusher")
	pod := testPod("cu")
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("cu-1", pod)})
	must(t, err)
	// The plugin hears of the container in CreateContainer and may send
	// updates before its record exists. It sends one call at a time: of two
	// calls that reach the runtime after the creation returned, the second
	// comes after the first was answered, and recorded.
	select {
	case <-calls:
	default:
	}
	for range 2 {
		select {
		case <-calls:
		case <-time.After(waitLimit):
			t.Fatal("the plugin's unsolicited updates did not reach the runtime")
		}
	}
	rec, ok := e.a.ContainerRecord("cu-1")
	if !ok || len(rec.Updates) == 0 {
		t.Fatalf("record %+v, want the plugin's updates", rec)
	}
	u := rec.Updates[0]
	if u.Plugin != "20-pusher" || u.Source != adaptation.UpdateByPlugin || u.Failed ||
		!reflect.DeepEqual(u.Fields, []adaptation.FieldOwner{{Field: "CPUShares", Plugin: "20-pusher"}}) {
		t.Errorf("update %+v, want 20-pusher's CPU shares, unsolicited", u)
	}
	if len(rec.Fields) != 0 {
		t.Errorf("fields %+v: the plugin set none at creation", rec.Fields)
	}
}

func TestWithContainerRecordsBounds(t *testing.T) {
	for _, n := range []int{-1, adaptation.MaxContainerRecords + 1} {
		if _, err := adaptation.New("r", "v", nil, nil, adaptation.WithContainerRecords(n)); err == nil || !strings.Contains(err.Error(), "container_records") {
			t.Errorf("WithContainerRecords(%d): error %v, want one naming container_records", n, err)
		}
	}
}

// A plugin's update of another container in its CreateContainer reply is
// in that container's record.
func TestContainerRecordUpdateByCreation(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(4))
	e.preinstall("10", "neighbour", testplugin.Config{Events: "createcontainer",
		CreateUpdates: []testplugin.Update{{ContainerID: "cc-1", CPUShares: 256}}})
	ctx := context.Background()
	pod := testPod("cc")
	// Created before any plugin runs: recorded, changed by none.
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("cc-1", pod)})
	must(t, err)
	e.start()
	e.waitPlugins("10-neighbour")
	_, err = e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("cc-2", pod)})
	must(t, err)
	rec, ok := e.a.ContainerRecord("cc-1")
	if !ok {
		t.Fatal("no record of cc-1")
	}
	checkUpdates(t, rec, adaptation.UpdateRecord{Source: adaptation.UpdateByCreation, Plugin: "10-neighbour",
		Fields: []adaptation.FieldOwner{{Field: "CPUShares", Plugin: "10-neighbour"}}})
	if rec, _ := e.a.ContainerRecord("cc-2"); len(rec.Fields) != 0 || len(rec.Updates) != 0 {
		t.Errorf("cc-2's record %+v: the plugin changed nothing of it", rec)
	}
}

// A plugin's update of another container in its StopContainer reply is in
// that container's record.
func TestContainerRecordUpdateByStop(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(4))
	e.preinstall("10", "rebalance", testplugin.Config{Events: "stopcontainer",
		StopUpdates: []testplugin.Update{{ContainerID: "cs-1", CPUShares: 512}}})
	e.start()
	e.waitPlugins("10-rebalance")
	ctx := context.Background()
	pod := testPod("cs")
	for _, id := range []string{"cs-1", "cs-2"} {
		_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(id, pod)})
		must(t, err)
	}
	rsp, err := e.a.StopContainer(ctx, &api.StopContainerRequest{Pod: pod, Container: testContainer("cs-2", pod)})
	must(t, err)
	if len(rsp.GetUpdate()) != 1 {
		t.Fatalf("StopContainer's updates %v, want the plugin's one", rsp.GetUpdate())
	}
	rec, ok := e.a.ContainerRecord("cs-1")
	if !ok {
		t.Fatal("no record of cs-1")
	}
	checkUpdates(t, rec, adaptation.UpdateRecord{Source: adaptation.UpdateByStop, Plugin: "10-rebalance",
		Fields: []adaptation.FieldOwner{{Field: "CPUShares", Plugin: "10-rebalance"}}})
}

// checkUpdates compares a record's updates, their times left out, with want.
func checkUpdates(t *testing.T, rec adaptation.ContainerRecord, want ...adaptation.UpdateRecord) {
	t.Helper()
	got := slices.Clone(rec.Updates)
	for i := range got {
		got[i].Time = time.Time{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s's updates %+v, want %+v", rec.ID, got, want)
	}
}

// Records are evicted by live count, oldest live first: removing
// containers frees room, so a record goes only when the cap's worth of
// newer live containers are recorded.
func TestContainerRecordsEvictOldestLive(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(3))
	e.start()
	ctx := context.Background()
	pod := testPod("ce")
	create := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(id, pod)})
			must(t, err)
		}
	}
	remove := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			must(t, e.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: pod, Container: testContainer(id, pod)}))
		}
	}
	kept := func(want ...string) {
		t.Helper()
		var got []string
		for _, id := range []string{"ce-a", "ce-b", "ce-c", "ce-d", "ce-e", "ce-f", "ce-g", "ce-h"} {
			if _, ok := e.a.ContainerRecord(id); ok {
				got = append(got, id)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("records of %v, want %v", got, want)
		}
		if n := e.a.Status().ContainerRecords; n != len(want) {
			t.Errorf("status counts %d records, want %d", n, len(want))
		}
	}
	create("ce-a", "ce-b", "ce-c")
	remove("ce-b", "ce-c")
	create("ce-d")
	kept("ce-a", "ce-d") // a is still live and within the cap
	create("ce-e")
	kept("ce-a", "ce-d", "ce-e")
	create("ce-f")
	kept("ce-d", "ce-e", "ce-f") // full: the oldest live, a, made room
	remove("ce-e")
	create("ce-g")
	kept("ce-d", "ce-f", "ce-g")
	create("ce-h")
	kept("ce-f", "ce-g", "ce-h")
	create("ce-f") // the same ID again: its new record is the newest
	create("ce-a")
	kept("ce-a", "ce-f", "ce-h")
}
