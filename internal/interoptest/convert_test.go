package interoptest_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/internal/interoptest"
)

// TestConvertAgreesWithReference runs testdata/interop/convert, which feeds
// the same inputs (nil, empty, partial, full) to nrikit's api helpers and to
// the reference's and compares the results field by field: the conversions
// from and to OCI spec types (LinuxResources.ToOCI with its always-present
// CPU and Memory sections among them), the optional-value constructors, the
// adjustment builders, the update setters, the owner lookups and the
// event-mask helpers. See its main.go.
func TestConvertAgreesWithReference(t *testing.T) {
	t.Parallel()
	bin := interoptest.Binary(t, "convert")
	t.Logf("convert built in %v", interoptest.BuildDuration("convert").Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("convert: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS") {
		t.Fatalf("convert exited 0 without a PASS line:\n%s", out.String())
	}
	t.Log(lines[len(lines)-1])
}
