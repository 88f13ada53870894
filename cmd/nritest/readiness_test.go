// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// --required-plugins shows in the report whether the required plugins were
// active when the lifecycle began, and each missing one's story; the
// default validator then rejects containers without them.
func TestRequiredPluginsShowReadiness(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--json", "--required-plugins", "logger,absent")
	checkSchema(t, r.stdout)
	var rep Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := rep.Readiness
	if got == nil || got.Ready || len(got.Missing) != 1 || !strings.Contains(got.Missing[0], `"absent" never connected`) ||
		got.Condition != "NRIPluginsReady=false (NRIRequiredPluginsNotActive)" {
		t.Errorf("readiness %+v, want not ready, absent never connected", got)
	}
	if r.code != exitFailed || !strings.Contains(r.stdout, `required plugin \"absent\" did not handle the container's creation`) {
		t.Errorf("exit %d; want the default validator to reject the containers:\n%s", r.code, r.stdout)
	}

	text := runCmd(t, "--required-plugins", "logger")
	if !strings.Contains(text.stdout, "READINESS (required plugins when the lifecycle began: logger)\nready  NRIPluginsReady=true\n") {
		t.Errorf("the text report lacks the readiness section:\n%s", text.stdout)
	}
	plain := runCmd(t)
	if strings.Contains(plain.stdout, "READINESS") {
		t.Errorf("READINESS shown without --required-plugins:\n%s", plain.stdout)
	}
	if bad := runCmd(t, "--required-plugins", "a,,b"); bad.code != exitUsage || !strings.Contains(bad.stderr, "empty plugin name") {
		t.Errorf("--required-plugins a,,b: exit %d, stderr %q", bad.code, bad.stderr)
	}
}
