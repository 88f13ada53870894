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

// TestSideBySide runs testdata/interop/sidebyside, a program that links our
// api package and the reference's into one binary, without
// GOLANG_PROTOBUF_REGISTRATION_CONFLICT, and round-trips every request and
// response type of both services between them. See its main.go.
func TestSideBySide(t *testing.T) {
	t.Parallel()
	bin := interoptest.Binary(t, "sidebyside")
	t.Logf("sidebyside built in %v", interoptest.BuildDuration("sidebyside").Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = interoptest.Without(os.Environ(), "GOLANG_PROTOBUF_REGISTRATION_CONFLICT")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		t.Fatalf("sidebyside: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS") {
		t.Fatalf("sidebyside exited 0 without a PASS line:\n%s", out.String())
	}
	t.Logf("sidebyside:\n%s", out.String())
}
