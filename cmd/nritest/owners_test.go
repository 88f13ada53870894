// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestOwners: with two plugins adjusting the same container, the report
// says which one set what, from nrikit's container records, with no plugin
// of nritest's own; --no-owners keeps no records and cannot.
func TestOwners(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "first", Events: "createcontainer",
			Annotations: map[string]string{"first.example.com/a": "1"}, Env: map[string]string{"FIRST": "1"}},
		testplugin.Config{Index: "20", Name: "second", Events: "createcontainer",
			Annotations: map[string]string{"second.example.com/b": "2"}},
	)

	r := runCmd(t, "--json", "--plugin-path", pluginDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	want := []Change{
		{Plugin: "10-first", Text: "annotations: first.example.com/a=1"},
		{Plugin: "20-second", Text: "annotations: second.example.com/b=2"},
		{Plugin: "10-first", Text: "env: FIRST=1"},
	}
	for _, i := range []int{1, 5} { // the CreateContainer rows
		e := rep.Events[i]
		if e.Event != "CreateContainer" || !slices.Equal(plainChanges(e.Changes), want) {
			t.Errorf("%s %s changes:\n%s\nwant\n%s", e.Event, e.Target, changeLines(e.Changes), changeLines(want))
		}
	}
	var text strings.Builder
	if err := rep.writeText(&text); err != nil {
		t.Fatal(err)
	}
	attributed := "changed by 10-first:\n" +
		"  annotations: first.example.com/a=1\n" +
		"  env: FIRST=1\n" +
		"changed by 20-second:\n" +
		"  annotations: second.example.com/b=2\n"
	if got := changeBlocks(text.String()); len(got) != 2 || got[0] != attributed || got[1] != attributed {
		t.Errorf("change blocks %q, want twice %q", got, attributed)
	}
	if ids := pluginIDs(rep.Active); !slices.Equal(ids, []string{"10-first", "20-second"}) || len(rep.Active) != 2 {
		t.Errorf("plugins %v: want the two under test alone", ids)
	}

	// Without records: no attribution.
	r = runCmd(t, "--plugin-path", pluginDir, "--no-owners")
	if r.code != exitOK {
		t.Fatalf("--no-owners: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	merged := "changed by 10-first, 20-second:\n" +
		"  annotations: first.example.com/a=1, second.example.com/b=2\n" +
		"  env: FIRST=1\n"
	if got := changeBlocks(r.stdout); len(got) != 2 || got[0] != merged || got[1] != merged {
		t.Errorf("--no-owners change blocks %q, want twice %q", got, merged)
	}
}

// changeBlocks returns the "changed by" blocks of a text report, one per
// event, without their indentation.
func changeBlocks(report string) []string {
	var blocks []string
	in := false
	for _, line := range strings.Split(report, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "changed by "):
			if !in {
				blocks = append(blocks, "")
			}
			in = true
			blocks[len(blocks)-1] += trimmed + "\n"
		case in && strings.HasPrefix(line, strings.Repeat(" ", 10)) && trimmed != "":
			blocks[len(blocks)-1] += "  " + trimmed + "\n"
		default:
			in = false
		}
	}
	return blocks
}

// TestOwnersOfUpdates: the report says which plugin made an
// UpdateContainer reply's update and which one a StopContainer reply's
// update of another container, from the records of the updated containers.
func TestOwnersOfUpdates(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "grow", Events: "updatecontainer", UpdateMemoryLimit: 1 << 30},
		testplugin.Config{Index: "20", Name: "rebalance", Events: "stopcontainer",
			StopUpdates: []testplugin.Update{{ContainerID: "ctr-2", CPUShares: 512}}},
	)
	r := runCmd(t, "--json", "--plugin-path", pluginDir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	want := map[string][]Change{
		"UpdateContainer app": {{Plugin: "10-grow", Text: "update ctr-1: memory.limit=1Gi"}},
		"StopContainer app":   {{Plugin: "20-rebalance", Text: "update ctr-2: cpu.shares=512"}},
	}
	for _, e := range rep.Events {
		w, ok := want[e.Event+" "+e.Target]
		if !ok {
			continue
		}
		delete(want, e.Event+" "+e.Target)
		if got := plainChanges(e.Changes); !slices.Equal(got, w) {
			t.Errorf("%s %s changes:\n%s\nwant\n%s", e.Event, e.Target, changeLines(e.Changes), changeLines(w))
		}
	}
	if len(want) != 0 {
		t.Errorf("events missing from the report: %v", want)
	}
}
