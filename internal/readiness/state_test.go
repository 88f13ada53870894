// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Each story has its one-line text.
func TestMissingTellsItsStory(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		m    Missing
		want string
	}{
		{Missing{Name: "foo", State: NeverConnected}, `"foo" never connected`},
		{Missing{Name: "foo", State: Left, Plugin: "10-foo", Reason: "connection lost", Time: at}, `"foo" (10-foo) left at 10:04:05: connection lost`},
		{Missing{Name: "10-foo", State: Left, Plugin: "10-foo", Reason: "replaced", Time: at}, `"10-foo" left at 10:04:05: replaced`},
		{Missing{Name: "foo", State: Failed, Plugin: "10-foo", Phase: "configure", Reason: "boom", Time: at}, `"foo" (10-foo) failed to join at 10:04:05, during configure: boom`},
		{Missing{Name: "foo", State: SyncBackoff, Plugin: "10-foo", BackoffUntil: at}, `"foo" (10-foo) is in its sync back-off until 10:04:05`},
		{Missing{Name: "foo", State: Synchronizing, Plugin: "10-foo", Time: at}, `"foo" (10-foo) registered and is synchronizing since 10:04:05`},
		{Missing{Name: "foo", State: NoAnswer, Plugin: "10-foo"}, `"foo" (10-foo) did not answer RunPodSandbox (timed out, or the event's deadline left it no time)`},
		{Missing{Name: "foo", State: NotStarted}, `"foo": NRI is not started`},
	} {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.m, got, tc.want)
		}
	}
	if got := stories([]Missing{{Name: "a"}, {Name: "b"}}); got != `"a" never connected; "b" never connected` {
		t.Errorf("stories: %q", got)
	}
	many := make([]Missing, 20)
	for i := range many {
		many[i].Name = fmt.Sprint("p", i)
	}
	if got := stories(many); strings.Count(got, "never connected") != maxStories || !strings.HasSuffix(got, "; and 12 more") {
		t.Errorf("stories of 20 missing plugins: %q, want the first %d, then \"and 12 more\"", got, maxStories)
	}
}

// A required name matches a plugin by its name alone or with its index.
func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		want     bool
	}{
		{"foo", "10-foo", true},
		{"10-foo", "10-foo", true},
		{"foo", "foo", true},
		{"20-foo", "10-foo", false},
		{"foo", "-foo", false},
		{"foo", "10-foobar", false},
		{"foo", "10-x-foo", false},
		{"x-foo", "10-x-foo", true},
	} {
		if got := Matches(tc.name, tc.id); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tc.name, tc.id, got, tc.want)
		}
	}
}
