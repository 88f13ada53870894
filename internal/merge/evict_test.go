// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// knownIDs is the runtime's containers, as the merge asks about them.
type knownIDs map[string]bool

func (k knownIDs) HasContainer(id string) bool { return k[id] }

// countingIDs counts the questions, to show that a repeated eviction is
// not looked up again.
type countingIDs struct {
	knownIDs
	asked int
}

func (c *countingIDs) HasContainer(id string) bool { c.asked++; return c.knownIDs[id] }

func evictionsOf(ids ...string) []*api.ContainerEviction {
	out := make([]*api.ContainerEviction, len(ids))
	for i, id := range ids {
		out[i] = &api.ContainerEviction{ContainerId: id, Reason: "r" + id}
	}
	return out
}

// TestEvictionsOnceEach: a container is evicted once, whatever the number
// of evictions of it the replies hold; the first one's reason is kept.
func TestEvictionsOnceEach(t *testing.T) {
	const n = 800_000
	evict := make([]*api.ContainerEviction, n)
	for i := range evict {
		evict[i] = &api.ContainerEviction{ContainerId: "victim", Reason: fmt.Sprint(i)}
	}
	c := NewCreate(createReq())
	must(t, c.Apply("10-a", &api.CreateContainerResponse{Evict: evict}))
	must(t, c.Apply("20-b", &api.CreateContainerResponse{Evict: evictionsOf("victim", "other")}))
	got := c.Response().Evict
	if len(got) != 2 || got[0].ContainerId != "victim" || got[0].Reason != "0" || got[1].ContainerId != "other" {
		t.Fatalf("%d evictions %v..., want victim (reason 0) and other once each", len(got), got[:min(len(got), 3)])
	}

	u := NewUpdate(updateReq())
	must(t, u.Apply("10-a", &api.UpdateContainerResponse{Evict: evictionsOf("x", "x", "y")}))
	must(t, u.Apply("20-b", &api.UpdateContainerResponse{Evict: evictionsOf("y", "x")}))
	if got := u.Response().Evict; len(got) != 2 || got[0].ContainerId != "x" || got[1].ContainerId != "y" {
		t.Errorf("UpdateContainer's evictions %v, want x and y once each", got)
	}
}

// TestEvictionsOfUnknownContainersDropped: with the runtime's containers
// given, an eviction of a container it does not have is dropped and
// noted, naming the plugin and the count;
// a container evicted many times is asked about once.
func TestEvictionsOfUnknownContainersDropped(t *testing.T) {
	known := &countingIDs{knownIDs: knownIDs{"c1": true, "c2": true}}
	c := NewCreate(createReq())
	c.LimitEvictions(known)
	must(t, c.Apply("10-a", &api.CreateContainerResponse{Evict: evictionsOf("c1", "ghost", "c1", "ghost", "c1", "ghost2")}))
	must(t, c.Apply("20-b", &api.CreateContainerResponse{Evict: evictionsOf("c2", "c1")}))
	got := c.Response().Evict
	if len(got) != 2 || got[0].ContainerId != "c1" || got[1].ContainerId != "c2" {
		t.Errorf("evictions %v, want c1 and c2", got)
	}
	if known.asked != 4 { // c1, ghost, ghost2, c2
		t.Errorf("asked %d times about the runtime's containers, want 4", known.asked)
	}
	if d := c.Discarded(); len(d) != 0 {
		t.Errorf("discarded updates %v, want none", d)
	}
	d := c.IgnoredEvictions()
	if len(d) != 1 || !strings.Contains(d[0].Error(), `"10-a"`) || !strings.Contains(d[0].Error(), "3 evictions") {
		t.Errorf("ignored evictions %v, want one note naming 10-a and its 3 evictions of unknown containers", d)
	}

	u := NewUpdate(updateReq())
	u.LimitEvictions(knownIDs{"c1": true})
	must(t, u.Apply("10-a", &api.UpdateContainerResponse{Evict: evictionsOf("ghost", "c1")}))
	if got := u.Response().Evict; len(got) != 1 || got[0].ContainerId != "c1" {
		t.Errorf("UpdateContainer's evictions %v, want c1 alone", got)
	}
}

// TestUpdateEvictionsUndoneWithTheirReply: a reply of UpdateContainer that
// fails to merge leaves no eviction behind, and does not keep a later
// reply from evicting the same container.
func TestUpdateEvictionsUndoneWithTheirReply(t *testing.T) {
	u := NewUpdate(updateReq())
	bad := &api.UpdateContainerResponse{Update: []*api.ContainerUpdate{nil}, Evict: evictionsOf("c1")}
	if err := u.Apply("10-a", bad); !errors.Is(err, ErrInvalidAdjustment) {
		t.Fatalf("a nil update: %v, want ErrInvalidAdjustment", err)
	}
	must(t, u.Apply("20-b", &api.UpdateContainerResponse{Evict: evictionsOf("c1")}))
	if got := u.Response().Evict; len(got) != 1 || got[0].Reason != "rc1" {
		t.Errorf("evictions %v, want 20-b's eviction of c1", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
