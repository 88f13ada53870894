// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The end-to-end tests re-execute this binary as the plugin.
	MaybeRunChild()
	goleak.VerifyTestMain(m)
}

// mustHandler returns a Handler closed at the end of the test.
func mustHandler(t *testing.T, cfg Config) *Handler {
	t.Helper()
	h, err := NewHandler(cfg)
	if err != nil {
		t.Fatalf("NewHandler: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// readLog reads the event log, failing the test on error.
func readLog(t *testing.T, path string) []Record {
	t.Helper()
	records, err := ReadLog(path)
	if err != nil {
		t.Fatalf("ReadLog: %v", err)
	}
	return records
}

func logPath(t *testing.T) string {
	return t.TempDir() + string(os.PathSeparator) + "events.jsonl"
}
