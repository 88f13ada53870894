// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

// combined runs the command with stdout and stderr on one writer, as on a
// terminal.
func combined(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	out := &lockedWriter{w: &bytes.Buffer{}}
	code := run(ctx, args, out, out)
	return code, out.String()
}

// progressLine matches the lines nritest prints while the plugins of
// --plugin-path start.
var progressLine = regexp.MustCompile(`^nritest: (starting the plugins in .* \(each has \S+ to register, see --registration-timeout\)|\d\d-\S+ joined \(pre-installed\))$`)

// afterProgress is out less its leading progress lines.
func afterProgress(out string) string {
	for {
		line, rest, ok := strings.Cut(out, "\n")
		if !ok || !progressLine.MatchString(line) {
			return out
		}
		out = rest
	}
}

// TestReportBeforeLogs: without -v, the report comes first and nrikit's
// warnings after it; with -v, the logs come as they happen, deprecations
// included.
func TestReportBeforeLogs(t *testing.T) {
	t.Parallel()
	pluginDir := installTestPlugins(t, t.TempDir(),
		testplugin.Config{Index: "10", Name: "old", Legacy: true},
		testplugin.Config{Index: "40", Name: "failstop", Behaviours: map[string]testplugin.Behaviour{"StopContainer": {Fail: "cannot stop today"}}},
	)
	code, out := combined(t, "--plugin-path", pluginDir, "--registration-timeout", "1m")
	if code != exitFailed || !strings.HasPrefix(afterProgress(out), "nritest: simulated runtime") {
		t.Fatalf("exit %d; the output does not start with the report's header:\n%s", code, out)
	}
	result := strings.Index(out, "\nRESULT: ")
	warning := strings.Index(out, "level=warning")
	if result < 0 || warning < result {
		t.Errorf("the failing plugin's warning is not after the report:\n%s", out)
	}
	if strings.Contains(out, "deprecated interface") || !strings.Contains(out, "10-old  deprecated StateChange") {
		t.Errorf("deprecations are logged, or missing from the report:\n%s", out)
	}

	code, out = combined(t, "-v", "--plugin-path", pluginDir, "--registration-timeout", "1m")
	if code != exitFailed || !strings.Contains(out, "level=debug") || !strings.Contains(out, "deprecated interface") {
		t.Errorf("-v: exit %d, no debug logs or deprecation warnings:\n%s", code, out)
	}
	if strings.Index(out, "level=debug") > strings.Index(out, "nritest: simulated runtime") {
		t.Errorf("-v: logs do not come as they happen:\n%s", out)
	}
}
