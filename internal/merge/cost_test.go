// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// The runtime holds its lock while a reply is merged, and the merge runs
// after the reply arrived, so no request timeout bounds it: merging one
// reply must cost work in proportion to the reply, whatever its shape. The
// tests here count that work per update, in allocations and in bytes
// allocated, which unlike time do not depend on the machine or its load: the
// count per update must stay flat from a small reply to a big one. A merge
// that copied the container's accumulated resources for each update (as it
// once did) allocates bytes in proportion to the updates before it.

// costShape is one kind of hostile reply, made with n updates.
type costShape struct {
	name    string
	updates func(n int) []*api.ContainerUpdate
}

var costShapes = []costShape{{
	// The attack that found the bug: a new unified key in each update.
	name: "one container, a unified key per update",
	updates: func(n int) []*api.ContainerUpdate {
		return nUpdates(n, func(i int) *api.ContainerUpdate {
			return upd("victim", false, &api.LinuxResources{Unified: map[string]string{fmt.Sprintf("memory.k%d", i): "1"}})
		})
	},
}, {
	// Hugepage limits are a list keyed by page size, and any number makes
	// a page size.
	name: "one container, a hugepage size per update",
	updates: func(n int) []*api.ContainerUpdate {
		return nUpdates(n, func(i int) *api.ContainerUpdate {
			return upd("victim", false, &api.LinuxResources{HugepageLimits: []*api.HugepageLimit{{PageSize: fmt.Sprintf("%dKB", i+1), Limit: 1}}})
		})
	},
}, {
	// Every other update claims its predecessor's key again and is dropped:
	// the undo of a failed update must not copy the container's table.
	name: "one container, every other update dropped",
	updates: func(n int) []*api.ContainerUpdate {
		return nUpdates(n, func(i int) *api.ContainerUpdate {
			return upd("victim", true, &api.LinuxResources{Unified: map[string]string{fmt.Sprintf("memory.k%d", i-i%2): "1"}})
		})
	},
}, {
	name: "a container per update",
	updates: func(n int) []*api.ContainerUpdate {
		return nUpdates(n, func(i int) *api.ContainerUpdate {
			return upd(fmt.Sprintf("c%d", i), false, memLimit(int64(i)))
		})
	},
}, {
	// One update as big as the others together: n unified keys.
	name: "one container, one update with n unified keys",
	updates: func(n int) []*api.ContainerUpdate {
		m := make(map[string]string, n)
		for i := range n {
			m[fmt.Sprintf("memory.k%d", i)] = "1"
		}
		return []*api.ContainerUpdate{upd("victim", false, &api.LinuxResources{Unified: m})}
	},
}}

func nUpdates(n int, one func(i int) *api.ContainerUpdate) []*api.ContainerUpdate {
	out := make([]*api.ContainerUpdate, n)
	for i := range out {
		out[i] = one(i)
	}
	return out
}

// costMergers merge one plugin's reply made of the given updates, by each
// of the three mergers that take update lists.
var costMergers = []struct {
	name  string
	merge func(us []*api.ContainerUpdate) error
}{
	{"UpdateContainer", func(us []*api.ContainerUpdate) error {
		return NewUpdate(&api.UpdateContainerRequest{Container: &api.Container{Id: "victim"}}).
			Apply(pa, &api.UpdateContainerResponse{Update: us})
	}},
	{"StopContainer", func(us []*api.ContainerUpdate) error {
		return NewStop(nil).Apply(pa, &api.StopContainerResponse{Update: us})
	}},
	{"CreateContainer", func(us []*api.ContainerUpdate) error {
		return NewCreate(createReq()).Apply(pa, &api.CreateContainerResponse{Update: us})
	}},
}

// workPerUpdate merges a reply of n updates of shape s and returns the
// allocations and bytes allocated per update.
func workPerUpdate(t *testing.T, merge func([]*api.ContainerUpdate) error, s costShape, n int) (allocs, bytes float64) {
	t.Helper()
	us := s.updates(n)
	run := func() {
		if err := merge(us); err != nil {
			t.Fatalf("%s, n=%d: %v", s.name, n, err)
		}
	}
	allocs = testing.AllocsPerRun(1, run)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	return allocs / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestMergeCostPerUpdateIsFlat: from 1,000 to 8,000 updates in one reply,
// the allocations and bytes per update may grow by half at most (maps grow
// in steps), where a quadratic merge makes them grow eightfold.
func TestMergeCostPerUpdateIsFlat(t *testing.T) {
	const small, big, slack = 1000, 8000, 1.5
	for _, m := range costMergers {
		for _, s := range costShapes {
			t.Run(m.name+"/"+s.name, func(t *testing.T) {
				a1, b1 := workPerUpdate(t, m.merge, s, small)
				a2, b2 := workPerUpdate(t, m.merge, s, big)
				t.Logf("per update: %.1f allocs, %.0f bytes at n=%d; %.1f allocs, %.0f bytes at n=%d", a1, b1, small, a2, b2, big)
				if a2 > slack*a1 {
					t.Errorf("allocations per update grew from %.1f (n=%d) to %.1f (n=%d)", a1, small, a2, big)
				}
				if b2 > slack*b1 {
					t.Errorf("bytes per update grew from %.0f (n=%d) to %.0f (n=%d)", b1, small, b2, big)
				}
			})
		}
	}
}

// BenchmarkMergeManyUpdates merges one reply of n updates of one container,
// each with its own unified key, as UpdateContainer and StopContainer get
// them from a hostile plugin. ns/op divided by n should not grow with n.
func BenchmarkMergeManyUpdates(b *testing.B) {
	for _, m := range costMergers[:2] {
		for _, n := range []int{1000, 4000, 16000} {
			b.Run(fmt.Sprintf("%s/n=%d", m.name, n), func(b *testing.B) {
				us := costShapes[0].updates(n)
				b.ReportAllocs()
				for b.Loop() {
					if err := m.merge(us); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
