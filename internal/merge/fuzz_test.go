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
// Update and Stop.
func FuzzMergeCreate(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b []byte) {
		req := createReq()
		c := NewCreate(req)
		u := NewUpdate(&api.UpdateContainerRequest{Container: testContainer(), LinuxResources: memLimit(1)})
		s := NewStop(nil)
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
			checkAtomic(t, u.Response, func() error {
				return u.Apply(plugin, &api.UpdateContainerResponse{Update: rsp.GetUpdate(), Evict: rsp.GetEvict()})
			})
			checkAtomic(t, s.Response, func() error {
				return s.Apply(plugin, &api.StopContainerResponse{Update: rsp.GetUpdate()})
			})
		}
		for _, m := range []proto.Message{c.Response(), c.Owners(), req.Container, c.Original(), u.Response(), s.Response()} {
			if _, err := proto.Marshal(m); err != nil {
				t.Fatalf("result does not encode: %v", err)
			}
		}
	})
}

// checkAtomic applies one reply; if it fails, the merged result must be as
// it was.
func checkAtomic[M proto.Message](t *testing.T, result func() M, apply func() error) {
	t.Helper()
	before := result()
	if err := apply(); err != nil {
		checkSentinel(t, err)
		if after := result(); !proto.Equal(before, after) {
			t.Fatalf("failed reply changed state: %v\nbefore %v\nafter  %v", err, before, after)
		}
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
	}
}
