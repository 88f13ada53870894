// SPDX-License-Identifier: Apache-2.0

package interoptest_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/interoptest"
)

// runCheck builds and runs the check program of testdata/interop/<module>,
// which prints one line per case and ends with "PASS" (or "PASS: " and a
// count) when nrikit agrees with the reference. It fails the test on any
// other ending and logs the output.
func runCheck(t *testing.T, module string) {
	t.Helper()
	bin := interoptest.Binary(t, module)
	t.Logf("%s built in %v", module, interoptest.BuildDuration(module).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = interoptest.Without(os.Environ(), "GOLANG_PROTOBUF_REGISTRATION_CONFLICT")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", module, err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "PASS" && !strings.HasPrefix(last, "PASS: ") {
		t.Fatalf("%s exited 0 without a PASS line:\n%s", module, out.String())
	}
	t.Logf("%s:\n%s", module, out.String())
}

// TestSideBySide runs testdata/interop/sidebyside, a program that links our
// api package and the reference's into one binary, without
// GOLANG_PROTOBUF_REGISTRATION_CONFLICT, and round-trips every request and
// response type of both services between them. See its main.go.
func TestSideBySide(t *testing.T) {
	t.Parallel()
	runCheck(t, "sidebyside")
}

// TestConvertAgreesWithReference runs testdata/interop/convert, which feeds
// the same inputs (nil, empty, partial, full) to nrikit's api helpers and to
// the reference's and compares the results field by field: the conversions
// from and to OCI spec types (LinuxResources.ToOCI with its always-present
// CPU and Memory sections among them), the optional-value constructors, the
// adjustment builders, the update setters, the owner lookups and the
// event-mask helpers. See its main.go.
func TestConvertAgreesWithReference(t *testing.T) {
	t.Parallel()
	runCheck(t, "convert")
}

// TestSpecGenerator runs testdata/interop/specgen, which applies a table of
// adjustments (empty, partial, full, removals, CDI devices, memory, swap,
// hugepages, classes, failing hooks) with the reference's spec generator and
// with ocispec.Applier, the same five runtime hooks plugged into both, and
// compares the specs and the hook calls. Every difference must be one the
// case lists as deliberate, with its reason. See its main.go.
func TestSpecGenerator(t *testing.T) {
	t.Parallel()
	runCheck(t, "specgen")
}
