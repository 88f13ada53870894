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

// TestSpecGenerator runs testdata/interop/specgen, which applies a table of
// adjustments (empty, partial, full, removals, CDI devices, memory, swap,
// hugepages, classes, failing hooks) with the reference's spec generator and
// with ocispec.Applier, the same five runtime hooks plugged into both, and
// compares the specs and the hook calls. Every difference must be one the
// case lists as deliberate, with its reason. See its main.go.
func TestSpecGenerator(t *testing.T) {
	t.Parallel()
	bin := interoptest.Binary(t, "specgen")
	t.Logf("specgen built in %v", interoptest.BuildDuration("specgen").Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("specgen: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "PASS" {
		t.Fatalf("specgen exited 0 without a PASS line:\n%s", out.String())
	}
	t.Logf("specgen:\n%s", out.String())
}
