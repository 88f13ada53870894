// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"testing"
	"time"
)

// TestExpectedTimeout: the timeout a required plugin will get once it
// joins, from the operator's settings as applySettings gives them: an
// "NN-name" key for that instance, else the bare name's, else the
// runtime's; a bare required name takes the longest of its instances'.
func TestExpectedTimeout(t *testing.T) {
	w := readinessPlugins{&Relay{cfg: Config{Request: 2 * time.Second, Settings: map[string]Settings{
		"gate":    {RequestTimeout: 500 * time.Millisecond},
		"10-gate": {RequestTimeout: 5 * time.Second},
		"my-gate": {RequestTimeout: time.Minute}, // another plugin's bare name
		"20-idle": {},
	}}}}
	for name, want := range map[string]time.Duration{
		"10-gate": 5 * time.Second,
		"20-gate": 500 * time.Millisecond,
		"gate":    5 * time.Second,
		"other":   2 * time.Second,
		"20-idle": 2 * time.Second,
		"my-gate": time.Minute,
	} {
		if got := w.ExpectedTimeout(name); got != want {
			t.Errorf("ExpectedTimeout(%q) = %v, want %v", name, got, want)
		}
	}
}
