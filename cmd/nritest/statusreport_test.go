// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestReportStatus: the status in the report counts exactly the calls the
// event table shows, per plugin, event and outcome; each event's histogram
// adds up to its count; a plugin's failure is its last error, in the JSON
// and the text report.
func TestReportStatus(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "all"},
		testplugin.Config{Index: "20", Name: "stops-badly", Events: "createcontainer,stopcontainer",
			Behaviours: map[string]testplugin.Behaviour{"StopContainer": {Fail: "cannot stop\tnow"}}},
	)
	r := runCmd(t, "--json", "--plugin-path", pluginDir)
	rep := parseJSON(t, r.stdout)
	if rep.Status == nil {
		t.Fatalf("no status in the report:\n%s", r.stdout)
	}
	table := map[string]uint64{} // "plugin/event/outcome" from the event table
	for _, e := range rep.Events {
		for _, c := range e.Calls {
			ev := c.Event
			if ev == "" {
				ev = e.Event
			}
			table[c.Plugin+"/"+ev+"/"+string(c.Outcome)]++
		}
	}
	for _, c := range rep.Outside {
		table[c.Plugin+"/"+c.Event+"/"+string(c.Outcome)]++
	}
	status := map[string]uint64{}
	for _, p := range rep.Status.Plugins {
		for _, c := range p.Calls {
			var inBuckets uint64
			for _, b := range c.Latency.Buckets {
				inBuckets += b.Count
			}
			if inBuckets != c.Total {
				t.Errorf("%s %s: %d calls, %d in the histogram", p.Plugin, c.Event, c.Total, inBuckets)
			}
			for o, n := range c.Outcomes {
				status[p.Plugin+"/"+c.Event+"/"+string(o)] = n
			}
		}
	}
	if len(table) == 0 {
		t.Fatal("the event table shows no calls")
	}
	for k, n := range table {
		if status[k] != n {
			t.Errorf("%s: the event table shows %d calls, the status %d", k, n, status[k])
		}
	}
	for k, n := range status {
		if table[k] != n {
			t.Errorf("%s: the status counts %d calls, the event table %d", k, n, table[k])
		}
	}
	var last *adaptation.PluginLastError
	for _, p := range rep.Status.Plugins {
		if p.Plugin == "20-stops-badly" {
			last = p.LastError
		}
	}
	if last == nil || last.Event != "StopContainer" || last.Outcome != adaptation.OutcomeError || !strings.Contains(last.Error, `cannot stop\tnow`) {
		t.Errorf("20-stops-badly's last error %+v, want its StopContainer failure, escaped", last)
	}
	var text strings.Builder
	if err := rep.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`\nSTATUS \(`, `\n20-stops-badly +StopContainer +2 +error 2 +\d+\.\d\dms +\[≤`, `\nLAST ERRORS`, `\n20-stops-badly +StopContainer error: .*cannot stop\\tnow\n`} {
		if !regexp.MustCompile(want).MatchString(text.String()) {
			t.Errorf("the text report lacks %s:\n%s", want, text.String())
		}
	}
}

// TestStatusOf: --status-of prints the status a running runtime serves on
// its status socket, as text or JSON, and fails when nothing answers there.
func TestStatusOf(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	path := filepath.Join(dir, "status.sock")
	a, err := adaptation.New("test-runtime", "v9", nil, nil, adaptation.WithStatusSocket(path),
		adaptation.WithDisabledExternalConnections(), adaptation.WithPluginPath(""))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer a.Stop(context.Background())

	r := runCmd(t, "--status-of", path)
	if r.code != exitOK || !strings.Contains(r.stdout, "status of test-runtime v9") || !strings.Contains(r.stdout, "\nSTATUS (") {
		t.Errorf("--status-of: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, "--status-of", path, "--json")
	var st adaptation.Status
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &st) != nil || st.SchemaVersion != adaptation.StatusSchemaVersion || st.Runtime != "test-runtime" {
		t.Errorf("--status-of --json: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, "--status-of", filepath.Join(dir, "nothing.sock"))
	if r.code != exitFailed || !strings.Contains(r.stderr, "nothing.sock") {
		t.Errorf("--status-of an absent socket: exit %d, stderr %q; want 1 naming the path", r.code, r.stderr)
	}
	r = runCmd(t, "--status-of", path, "--conformance")
	if r.code != exitUsage {
		t.Errorf("--status-of with --conformance: exit %d, want %d", r.code, exitUsage)
	}
	r = runCmd(t, "--status-of", path, "--container", "unknown")
	if r.code != exitFailed || !strings.Contains(r.stderr, "no record of that container") {
		t.Errorf("--container of an unknown container: exit %d, stderr %q; want 1 saying so", r.code, r.stderr)
	}
	r = runCmd(t, "--container", "ctr-1")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--container needs --status-of") {
		t.Errorf("--container alone: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
}
