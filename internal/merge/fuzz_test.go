// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// FuzzMergeCreate decodes two CreateContainer replies from arbitrary bytes
// and merges them. Whatever the input: no panic, only sentinel errors, a
// failed reply ends the Create merge and leaves no trace in Update and Stop,
// and every result still encodes. The update lists are also fed through
// Update and Stop, whole and one reply per update (checkSplit).
func FuzzMergeCreate(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b []byte) {
		req := createReq()
		c := NewCreate(req)
		newUpdate := func() *Update {
			return NewUpdate(&api.UpdateContainerRequest{Container: testContainer(), LinuxResources: memLimit(1)})
		}
		u, uSplit := newUpdate(), newUpdate()
		s, sSplit := NewStop(nil), NewStop(nil)
		updateSt := func(m *Update) *updateState { return &m.st }
		stopSt := func(m *Stop) *updateState { return &m.st }
		applyUpdate := func(plugin string) func(*Update, []*api.ContainerUpdate) error {
			return func(m *Update, us []*api.ContainerUpdate) error {
				return m.Apply(plugin, &api.UpdateContainerResponse{Update: us})
			}
		}
		applyStop := func(plugin string) func(*Stop, []*api.ContainerUpdate) error {
			return func(m *Stop, us []*api.ContainerUpdate) error {
				return m.Apply(plugin, &api.StopContainerResponse{Update: us})
			}
		}
		for i, data := range [][]byte{a, b} {
			plugin := []string{pa, pb}[i]
			rsp := &api.CreateContainerResponse{}
			if proto.Unmarshal(data, rsp) != nil {
				rsp = nil
			}
			failedBefore := c.Err() != nil
			err := c.Apply(plugin, rsp)
			checkSentinel(t, err)
			switch {
			case failedBefore && !errors.Is(err, ErrAbandoned):
				t.Fatalf("Create took a reply after a failed one: %v", err)
			case !failedBefore && err != c.Err():
				t.Fatalf("Apply = %v but Err = %v", err, c.Err())
			}
			err = checkAtomic(t, u.Response, func() error {
				return u.Apply(plugin, &api.UpdateContainerResponse{Update: rsp.GetUpdate(), Evict: rsp.GetEvict()})
			})
			if err == nil {
				checkSplit(t, u, uSplit, updateSt, rsp.GetUpdate(), applyUpdate(plugin))
				checkErr(t, uSplit.Apply(plugin, &api.UpdateContainerResponse{Evict: rsp.GetEvict()}), nil, "")
			}
			err = checkAtomic(t, s.Response, func() error {
				return s.Apply(plugin, &api.StopContainerResponse{Update: rsp.GetUpdate()})
			})
			if err == nil {
				checkSplit(t, s, sSplit, stopSt, rsp.GetUpdate(), applyStop(plugin))
			}
		}
		mustEqual(t, "Update merged whole and split", u.Response(), uSplit.Response())
		mustEqual(t, "Stop merged whole and split", s.Response(), sSplit.Response())
		for _, m := range []proto.Message{c.Response(), c.Owners(), req.Container, c.Original(), u.Response(), s.Response()} {
			if _, err := proto.Marshal(m); err != nil {
				t.Fatalf("result does not encode: %v", err)
			}
		}
	})
}

// checkAtomic applies one reply and returns its error; if it fails, the
// merged result must be as it was.
func checkAtomic[M proto.Message](t *testing.T, result func() M, apply func() error) error {
	t.Helper()
	before := result()
	err := apply()
	if err != nil {
		checkSentinel(t, err)
		if after := result(); !proto.Equal(before, after) {
			t.Fatalf("failed reply changed state: %v\nbefore %v\nafter  %v", err, before, after)
		}
	}
	return err
}

// checkSplit merges the updates of a reply that merged whole without error
// into a twin merger, one reply per update, by the same plugin. The twin
// must drop the same updates: an update merges, or is dropped, by what it
// asks and what was claimed before it, not by where it stands in its reply.
// And an update the twin drops must leave no trace, not even the claims it
// made before its conflict. The caller compares the twins' results.
func checkSplit[M interface{ Discarded() []error }](t *testing.T, whole, split M, st func(M) *updateState, us []*api.ContainerUpdate, apply func(M, []*api.ContainerUpdate) error) {
	t.Helper()
	for _, x := range us {
		before, n := st(split).clone(), len(split.Discarded())
		if err := apply(split, []*api.ContainerUpdate{x}); err != nil {
			t.Fatalf("update merged in its reply but not alone: %v", err)
		}
		if len(split.Discarded()) > n {
			after := st(split)
			mustEqual(t, "owners after a dropped update", after.owners.proto(), before.owners.proto())
			mustEqual(t, "updates after a dropped update",
				&api.StopContainerResponse{Update: after.updates.list()}, &api.StopContainerResponse{Update: before.updates.list()})
		}
	}
	if w, s := fmt.Sprint(whole.Discarded()), fmt.Sprint(split.Discarded()); w != s {
		t.Fatalf("dropped updates differ: whole reply %s, one by one %s", w, s)
	}
}

func checkSentinel(t *testing.T, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrInvalidAdjustment) && !errors.Is(err, ErrAbandoned) {
		t.Fatalf("error wraps no sentinel: %v", err)
	}
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzMergeCreate when
// NRIKIT_WRITE_FUZZ_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("NRIKIT_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set NRIKIT_WRITE_FUZZ_SEEDS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzMergeCreate")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, pair := range fuzzSeeds() {
		var enc [2][]byte
		for i, m := range pair {
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			enc[i] = b
		}
		text := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\n", enc[0], enc[1])
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fuzzSeeds() map[string][2]*api.CreateContainerResponse {
	return map[string][2]*api.CreateContainerResponse{
		"annotations-mounts-env": {
			{Adjust: &api.ContainerAdjustment{
				Annotations: map[string]string{"x": "1", "-orig": ""},
				Mounts:      []*api.Mount{{Destination: "/m", Source: "/s"}},
				Env:         []*api.KeyValue{{Key: "X", Value: "1"}},
			}},
			{Adjust: &api.ContainerAdjustment{
				Annotations: map[string]string{"-x": "", "x": "2"},
				Mounts:      []*api.Mount{{Destination: "-/m"}},
				Env:         []*api.KeyValue{{Key: "X", Value: "2"}},
			}},
		},
		"linux": {
			{Adjust: &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{
				Devices:    []*api.LinuxDevice{{Path: "/dev/x"}},
				Resources:  &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 1}}, HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB"}}, Unified: map[string]string{"k": "v"}},
				Namespaces: []*api.LinuxNamespace{{Type: "-network"}, {Type: "ipc"}},
				Sysctl:     map[string]string{"s": "1"},
				NetDevices: map[string]*api.LinuxNetDevice{"eth1": {Name: "e"}},
				Rdt:        &api.LinuxRdt{ClosId: &api.OptionalString{Value: "c"}},
			}}},
			{Adjust: &api.ContainerAdjustment{Linux: &api.LinuxContainerAdjustment{
				Resources:    &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 2}}},
				Namespaces:   []*api.LinuxNamespace{{Type: "-ipc"}, {Type: "ipc"}},
				NetDevices:   map[string]*api.LinuxNetDevice{"-eth1": {}},
				Rdt:          &api.LinuxRdt{Remove: true},
				MemoryPolicy: &api.LinuxMemoryPolicy{Nodes: "0"},
			}}},
		},
		"args-hooks-rlimits": {
			{Adjust: &api.ContainerAdjustment{
				Args:       []string{"a"},
				Hooks:      &api.Hooks{Prestart: []*api.Hook{{Path: "/h"}}},
				Rlimits:    []*api.POSIXRlimit{{Type: "RLIMIT_CORE"}},
				CDIDevices: []*api.CDIDevice{{Name: "v.com/d=0"}},
			}},
			{Adjust: &api.ContainerAdjustment{
				Args:    []string{"", "b"},
				Hooks:   &api.Hooks{Poststop: []*api.Hook{{Path: "/h2"}}},
				Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_CORE"}},
			}},
		},
		"updates": {
			{
				Update: []*api.ContainerUpdate{upd("c1", true, memLimit(1)), upd("c2", false, cpuShares(1))},
				Evict:  []*api.ContainerEviction{{ContainerId: "c3", Reason: "r"}},
			},
			{Update: []*api.ContainerUpdate{upd("c1", true, memLimit(2)), upd(ctrID, false, cpuShares(1))}},
		},
		// Many updates of one container: page sizes and unified keys added
		// one update at a time, and updates dropped in between.
		"updates-one-container": {
			{Update: []*api.ContainerUpdate{
				upd("c1", false, &api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1}}}),
				upd("c1", true, &api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "1GB", Limit: 1}, {PageSize: "2MB", Limit: 2}}}),
				upd("c1", true, &api.LinuxResources{Unified: map[string]string{"memory.high": "1"}, HugepageLimits: []*api.HugepageLimit{{PageSize: "1GB", Limit: 3}}}),
				upd("c1", true, &api.LinuxResources{Unified: map[string]string{"memory.high": "2", "memory.max": "2"}}),
				upd(ctrID, false, &api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 4}}}),
			}},
			{Update: []*api.ContainerUpdate{
				upd("c1", true, &api.LinuxResources{Unified: map[string]string{"memory.max": "3"}, HugepageLimits: []*api.HugepageLimit{{PageSize: "64KB", Limit: 1}}}),
				upd("c1", true, &api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 5}}}),
				upd(ctrID, true, &api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: "1GB", Limit: 6}}}),
			}},
		},
	}
}
