// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A plugin that only a pod's annotation requires, missing when the pod is
// held, makes the node not ready, naming the plugin's story and the pod,
// until it joins; the runtime's callback hears both flips.
func TestAPluginAPodLackedMakesTheNodeNotReady(t *testing.T) {
	flips := make(chan State, 4)
	f := newFixture(t, 50*time.Millisecond, requiring(), func(c *Config) { c.Notify = func(s State) { flips <- s } })
	f.Starting()
	next := func(want bool) State {
		t.Helper()
		select {
		case s := <-flips:
			if s.Ready != want {
				t.Fatalf("flip %+v, want ready %v", s, want)
			}
			return s
		case <-time.After(waitLimit):
			t.Fatalf("no flip to ready %v", want)
		}
		return State{}
	}
	next(true)
	pod := testPod("p")
	pod.Annotations = map[string]string{requiredAnnotated: "[extra]"}
	if err := f.Await(context.Background(), pod); !errors.Is(err, ErrPluginsNotReady) {
		t.Fatalf("Await: %v, want ErrPluginsNotReady", err)
	}
	s := next(false)
	if len(s.Missing) != 1 || s.Missing[0].Name != "extra" || s.Missing[0].Pod != "default/p" ||
		s.Missing[0].String() != `"extra" never connected (required by pod default/p)` {
		t.Errorf("not ready with %+v, want extra, required by pod default/p", s.Missing)
	}
	if st := f.State(); st.Ready || len(st.Missing) != 1 {
		t.Errorf("State %+v, want not ready, missing extra", st)
	}
	f.join("20-extra")
	next(true)
	if st := f.State(); !st.Ready || len(st.Missing) != 0 {
		t.Errorf("State %+v once extra joined, want ready", st)
	}
}

// A plugin a pod lacked stops counting once no pod lacked it for a while:
// the node flips back to ready by itself.
func TestAPluginAPodLackedIsForgottenInTime(t *testing.T) {
	flips := make(chan State, 4)
	f := newFixture(t, 20*time.Millisecond, requiring(), func(c *Config) { c.Notify = func(s State) { flips <- s } })
	f.wanted.ttl = 200 * time.Millisecond
	f.Starting()
	pod := testPod("p")
	pod.Annotations = map[string]string{requiredAnnotated: "[typo]"}
	_ = f.Await(context.Background(), pod)
	var got []bool
	deadline := time.After(waitLimit)
	for len(got) < 3 {
		select {
		case s := <-flips:
			got = append(got, s.Ready)
		case <-deadline:
			t.Fatalf("flips %v, want ready, not ready, ready again", got)
		}
	}
	if got[0] != true || got[1] != false || got[2] != true {
		t.Errorf("flips %v, want ready, not ready, ready again", got)
	}
}

// Pods' annotations can name any number of plugins: at most maxWanted
// are remembered.
func TestPluginsPodsLackedAreBounded(t *testing.T) {
	f := newFixture(t, time.Millisecond, requiring())
	f.Starting()
	f.mu.Lock()
	for i := range 3 * maxWanted {
		f.wantLocked("default/p", []Missing{{Name: "p" + string(rune('a'+i%26)) + string(rune('a'+i/26)), State: NeverConnected}})
	}
	n := len(f.wanted.byName)
	f.mu.Unlock()
	if n != maxWanted {
		t.Errorf("%d plugins remembered, want %d", n, maxWanted)
	}
}
