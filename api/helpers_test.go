// SPDX-License-Identifier: Apache-2.0

package api

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
)

func TestDupStringSliceAndMap(t *testing.T) {
	if DupStringSlice(nil) != nil || DupStringMap(nil) != nil {
		t.Error("nil not kept nil")
	}
	if s := DupStringSlice([]string{}); s == nil || len(s) != 0 {
		t.Errorf("empty slice gave %#v", s)
	}
	in := []string{"a", "b"}
	out := DupStringSlice(in)
	in[0] = "x"
	if out[0] != "a" || len(out) != 2 {
		t.Errorf("copy shares memory or lost entries: %v", out)
	}
	m := map[string]string{"k": "v"}
	mc := DupStringMap(m)
	m["k"] = "x"
	if mc["k"] != "v" {
		t.Error("map copy shares memory")
	}
}

func TestRemovalMarkers(t *testing.T) {
	for _, c := range []struct {
		key, name string
		marked    bool
	}{{"-a", "a", true}, {"a", "a", false}, {"", "", false}, {"-", "", true}, {"--a", "-a", true}} {
		name, marked := IsMarkedForRemoval(c.key)
		if name != c.name || marked != c.marked {
			t.Errorf("IsMarkedForRemoval(%q) = %q, %v; want %q, %v", c.key, name, marked, c.name, c.marked)
		}
		if got := ClearRemovalMarker(c.key); got != c.name {
			t.Errorf("ClearRemovalMarker(%q) = %q, want %q", c.key, got, c.name)
		}
	}
	if k := MarkForRemoval("a"); k != "-a" {
		t.Errorf("MarkForRemoval = %q", k)
	}
	checks := []struct {
		what string
		fn   func() (string, bool)
	}{
		{"KeyValue", (&KeyValue{Key: "-E"}).IsMarkedForRemoval},
		{"Mount", (&Mount{Destination: "-/d"}).IsMarkedForRemoval},
		{"LinuxDevice", (&LinuxDevice{Path: "-/dev/x"}).IsMarkedForRemoval},
		{"LinuxNamespace", (&LinuxNamespace{Type: "-network"}).IsMarkedForRemoval},
	}
	for _, c := range checks {
		if name, marked := c.fn(); !marked || name == "" || name[0] == '-' {
			t.Errorf("%s: %q, %v", c.what, name, marked)
		}
	}
	if _, marked := (*Mount)(nil).IsMarkedForRemoval(); marked {
		t.Error("a nil mount is marked")
	}
}

func TestEnvConversions(t *testing.T) {
	if FromOCIEnv(nil) != nil {
		t.Error("nil env gave non-nil")
	}
	got := FromOCIEnv([]string{"A=1", "B=", "C", "D=x=y"})
	want := []*KeyValue{{Key: "A", Value: "1"}, {Key: "B"}, {Key: "C"}, {Key: "D", Value: "x=y"}}
	if len(got) != len(want) {
		t.Fatalf("FromOCIEnv gave %v", got)
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if s := (&KeyValue{Key: "D", Value: "x=y"}).ToOCI(); s != "D=x=y" {
		t.Errorf("ToOCI = %q", s)
	}
}

func TestContainerTimes(t *testing.T) {
	c := &Container{CreatedAt: int64(time.Second), StartedAt: int64(2 * time.Second), FinishedAt: 3}
	zero := time.Time{}
	if c.GetCreatedAtTime() != zero.Add(time.Second) || c.GetStartedAtTime() != zero.Add(2*time.Second) ||
		c.GetFinishedAtTime() != zero.Add(3) {
		t.Errorf("times %v %v %v", c.GetCreatedAtTime(), c.GetStartedAtTime(), c.GetFinishedAtTime())
	}
	if !(*Container)(nil).GetCreatedAtTime().IsZero() {
		t.Error("nil container has a creation time")
	}
}
