// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestCallFailuresHaveReasons: every plugin call that did not end ok, a
// failed teardown included, carries its reason in the JSON calls and in the
// text report.
func TestCallFailuresHaveReasons(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "30", Name: "stuck", Behaviours: map[string]testplugin.Behaviour{"PostUpdatePodSandbox": {Hang: true}}},
		testplugin.Config{Index: "40", Name: "failstop", Behaviours: map[string]testplugin.Behaviour{"StopContainer": {Fail: "cannot stop today"}}},
		testplugin.Config{Index: "50", Name: "picky", Behaviours: map[string]testplugin.Behaviour{"ValidateContainerAdjustment": {Fail: "not this one"}}},
		testplugin.Config{Index: "60", Name: "crash", Behaviours: map[string]testplugin.Behaviour{"StopPodSandbox": {Exit: 3}}},
	)
	args := []string{"--plugin-path", pluginDir, "--request-timeout", "2s", "--registration-timeout", "1m"}
	r := runCmd(t, append(args, "--json")...)
	if r.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	failed := map[string]Call{}
	for _, e := range rep.Events {
		for _, c := range e.Calls {
			if c.Outcome == "ok" {
				continue
			}
			failed[c.Plugin+" "+string(c.Outcome)] = c
			if c.Error == "" {
				t.Errorf("%s: %s %s has no error", e.Event, c.Plugin, c.Outcome)
			}
		}
	}
	want := map[string]string{
		"30-stuck timeout":  "timed out",
		"40-failstop error": "cannot stop today",
		"50-picky error":    "not this one", // a validator's error fails the CreateContainer
		"60-crash lost":     "closed",
	}
	for call, reason := range want {
		if c, ok := failed[call]; !ok || !strings.Contains(c.Error, reason) {
			t.Errorf("call %q: %+v, want an error containing %q (failed calls: %+v)", call, c, reason, failed)
		}
	}

	// In the text, under the event: the call's reason, or the event's error
	// naming the plugin.
	text := runCmd(t, args...)
	for call, reason := range want {
		plugin := strings.Fields(call)[0]
		if !strings.Contains(lineWith(text.stdout, call+": "), reason) &&
			!strings.Contains(lineWith(text.stdout, "error: nrikit: plugin "+plugin+":"), reason) {
			t.Errorf("text report: no reason %q for %q:\n%s", reason, call, text.stdout)
		}
	}
}

// lineWith returns the first line of s that contains sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
