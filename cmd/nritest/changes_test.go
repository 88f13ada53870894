// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func TestCreateChangesText(t *testing.T) {
	t.Parallel()
	rsp := &api.CreateContainerResponse{
		Adjust: &api.ContainerAdjustment{
			Annotations: map[string]string{"b": "2", "a": "1", "-gone": ""},
			Mounts: []*api.Mount{
				{Destination: "/data", Source: "/host/data", Type: "bind", Options: []string{"rbind", "ro"}},
				{Destination: "/tmp", Source: "tmpfs"},
				{Destination: "-/old"},
			},
			Env:     []*api.KeyValue{{Key: "K", Value: "V"}, {Key: "-DROP"}},
			Hooks:   &api.Hooks{Prestart: []*api.Hook{{Path: "/bin/hook", Args: []string{"hook", "--now"}, Timeout: &api.OptionalInt{Value: 5}}}},
			Rlimits: []*api.POSIXRlimit{{Type: "RLIMIT_NOFILE", Soft: 1024, Hard: 4096}},
			Args:    []string{"/bin/sh", "-c", "echo hi"},
			Linux: &api.LinuxContainerAdjustment{
				Devices: []*api.LinuxDevice{
					{Path: "/dev/null", Type: "c", Major: 1, Minor: 3, FileMode: &api.OptionalFileMode{Value: 0o666}, Uid: &api.OptionalUInt32{Value: 0}},
				},
				Resources: &api.LinuxResources{
					Memory:         &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 256 << 20}, Swappiness: &api.OptionalUInt64{Value: 10}},
					Cpu:            &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}, Cpus: "0-3"},
					HugepageLimits: []*api.HugepageLimit{{PageSize: "2MB", Limit: 1 << 30}},
					Unified:        map[string]string{"memory.high": "1G"},
					Devices:        []*api.LinuxDeviceCgroup{{Allow: true, Type: "c", Major: &api.OptionalInt64{Value: 1}, Minor: &api.OptionalInt64{Value: 3}, Access: "rwm"}},
				},
				OomScoreAdj: &api.OptionalInt{Value: -500},
				IoPriority:  &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_BE, Priority: 4},
				Namespaces:  []*api.LinuxNamespace{{Type: "network", Path: "/proc/1/ns/net"}},
				Rdt:         &api.LinuxRdt{ClosId: &api.OptionalString{Value: "gold"}, Schemata: &api.OptionalRepeatedString{Value: []string{"L3:0=f"}}},
			},
			CDIDevices: []*api.CDIDevice{{Name: "vendor.com/gpu=0"}},
		},
		Update: []*api.ContainerUpdate{
			resourceUpdate("ctr-2", &api.LinuxResources{Cpu: &api.LinuxCPU{Quota: &api.OptionalInt64{Value: -1}}}),
			{ContainerId: "ctr-3", IgnoreFailure: true},
		},
		Evict: []*api.ContainerEviction{{ContainerId: "ctr-4", Reason: "no room"}, {ContainerId: "ctr-5"}},
	}
	own := &api.OwningPlugins{Owners: map[string]*api.FieldOwners{
		"ctr-1": {
			Simple: map[int32]string{int32(api.Field_MemLimit): "20-b", int32(api.Field_OciHooks): "10-a,20-b"},
			Compound: map[int32]*api.CompoundFieldOwners{
				int32(api.Field_Annotations): {Owners: map[string]string{"a": "10-a", "b": "20-b", "gone": "-20-b"}},
				int32(api.Field_Devices):     {Owners: map[string]string{"/dev/null": "30-dev"}},
			},
		},
		"ctr-2": {Simple: map[int32]string{int32(api.Field_CPUQuota): "20-b"}},
	}}
	want := []Change{
		{Plugin: "10-a", Text: "annotations: a=1"},
		{Plugin: "20-b", Text: "annotations: b=2, -gone"},
		{Plugin: "", Text: "mounts: /data <- /host/data (bind, rbind,ro), /tmp <- tmpfs, -/old"},
		{Plugin: "", Text: "env: K=V, -DROP"},
		{Plugin: "10-a, 20-b", Text: "hooks: prestart /bin/hook --now (timeout 5s)"},
		{Plugin: "30-dev", Text: "devices: /dev/null c 1:3 0666 uid=0"},
		{Plugin: "20-b", Text: "resources: memory.limit=256Mi"},
		{Plugin: "", Text: "resources: memory.swappiness=10, cpu.shares=512, cpu.cpus=0-3, hugepages.2MB=1Gi, unified.memory.high=1G, device allow c 1:3 rwm"},
		{Plugin: "", Text: "oom_score_adj: -500"},
		{Plugin: "", Text: "io_priority: class=IOPRIO_CLASS_BE priority=4"},
		{Plugin: "", Text: "namespaces: network=/proc/1/ns/net"},
		{Plugin: "", Text: "rdt: clos_id=gold, schemata=[L3:0=f]"},
		{Plugin: "", Text: "rlimits: RLIMIT_NOFILE 1024/4096"},
		{Plugin: "", Text: "cdi_devices: vendor.com/gpu=0"},
		{Plugin: "", Text: `args: /bin/sh -c "echo hi"`},
		{Plugin: "20-b", Text: "update ctr-2: cpu.quota=-1"},
		{Plugin: "", Text: "update ctr-3 (failure ignored): nothing"},
		{Plugin: "", Text: "evict ctr-4: no room"},
		{Plugin: "", Text: "evict ctr-5: (no reason given)"},
	}
	if got := plainChanges(createChanges("ctr-1", rsp, own)); !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant\n%s", changeLines(got), changeLines(want))
	}
	// Each line's kind, container and field, for machines.
	kinds := map[string]Change{}
	for _, c := range createChanges("ctr-1", rsp, own) {
		kinds[c.Text] = Change{What: c.What, Container: c.Container, Field: c.Field, IgnoreFailure: c.IgnoreFailure}
	}
	for text, want := range map[string]Change{
		"annotations: a=1":                        {What: ChangeAdjustment, Container: "ctr-1", Field: "annotations"},
		"devices: /dev/null c 1:3 0666 uid=0":     {What: ChangeAdjustment, Container: "ctr-1", Field: "devices"},
		"update ctr-2: cpu.quota=-1":              {What: ChangeUpdate, Container: "ctr-2", Field: "resources"},
		"update ctr-3 (failure ignored): nothing": {What: ChangeUpdate, Container: "ctr-3", Field: "resources", IgnoreFailure: true},
		"evict ctr-4: no room":                    {What: ChangeEviction, Container: "ctr-4"},
	} {
		if kinds[text] != want {
			t.Errorf("%q: %+v, want %+v", text, kinds[text], want)
		}
	}
	// Without owners, nothing is attributed and lines of a section merge.
	got := createChanges("ctr-1", rsp, nil)
	if got[0].Text != "annotations: a=1, b=2, -gone" || got[0].What != ChangeAdjustment || slices.ContainsFunc(got, func(c Change) bool { return c.Plugin != "" }) {
		t.Errorf("changes without owners:\n%s", changeLines(got))
	}
}

func changeLines(cs []Change) string {
	var s string
	for _, c := range cs {
		s += "  " + c.Plugin + " | " + c.Text + "\n"
	}
	return s
}

func TestChangeGroups(t *testing.T) {
	t.Parallel()
	calls := []Call{{Plugin: "10-a", Adjusted: 1}, {Plugin: "20-b", Adjusted: 1}, {Plugin: "30-c"}}
	got := changeGroups([]Change{
		{Plugin: "20-b", Text: "annotations: b=2"},
		{Text: "mounts: -/old"},
		{Plugin: "10-a", Text: "annotations: a=1"},
		{Plugin: "20-b", Text: "env: B=2"},
	}, calls)
	want := []changeGroup{
		{by: "10-a", lines: []string{"annotations: a=1"}},
		{by: "20-b", lines: []string{"annotations: b=2", "env: B=2"}},
		{by: "10-a, 20-b", lines: []string{"mounts: -/old"}},
	}
	if !slices.EqualFunc(got, want, func(a, b changeGroup) bool { return a.by == b.by && slices.Equal(a.lines, b.lines) }) {
		t.Errorf("groups = %+v, want %+v", got, want)
	}
}

func TestValueTexts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{bytesText(0), "0"},
		{bytesText(1000), "1000"},
		{bytesText(1536), "1536"},
		{bytesText(2048), "2Ki"},
		{bytesText(3 << 30), "3Gi"},
		{bytesText(5 << 40), "5Ti"},
		{resourcesText("x", nil), "nothing"},
		{resourcesText("x", &api.LinuxResources{Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: -1}, Swap: &api.OptionalInt64{Value: 1 << 30}}}), "memory.limit=-1, memory.swap=1Gi"},
		{deviceText(&api.LinuxDevice{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229}), "/dev/fuse c 10:229"},
		{deviceText(&api.LinuxDevice{Path: "/dev/x", Type: "b", Major: 8, FileMode: &api.OptionalFileMode{Value: 0o2660}, Gid: &api.OptionalUInt32{Value: 6}}), "/dev/x b 8:0 2660 gid=6"},
		{cgroupDeviceText(&api.LinuxDeviceCgroup{Access: "rwm"}), "deny a *:* rwm"},
		{mountText(&api.Mount{Destination: "/m", Source: "/s", Options: []string{"ro"}}), "/m <- /s (ro)"},
		{argsText([]string{"a", "", "b c", `d"e`}), `a "" "b c" "d\"e"`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// plainChanges keeps what the tests compare: who asked for a change, and
// its text.
func plainChanges(cs []Change) []Change {
	out := make([]Change, len(cs))
	for i, c := range cs {
		out[i] = Change{Plugin: c.Plugin, Text: c.Text}
	}
	return out
}
