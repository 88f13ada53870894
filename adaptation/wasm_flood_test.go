// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package adaptation_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// TestWASMGuestCannotFloodTheLog: a guest that calls the host's log
// function in a loop with 56 KB messages, and one that writes endless lines
// (and one line without an end) to stdout and stderr, each for a whole
// call, cost the runtime's logger a bounded number of short, valid UTF-8
// lines; each is dropped at its timeout, and a good guest gets every event.
func TestWASMGuestCannotFloodTheLog(t *testing.T) {
	timeout := 2 * time.Second
	if raceEnabled {
		timeout = 4 * time.Second
	}
	e := newEnv(t, wasmOptions(t, adaptation.WithRequestTimeout(timeout))...)
	e.wasmPreinstall("wasm", "10", "logflood", "logflood=CreateContainer")
	e.wasmPreinstall("wasm", "11", "spew", "spew=CreateContainer")
	e.wasmPreinstall("wasm", "50", "good")
	e.start()
	e.waitPlugins("10-logflood", "11-spew", "50-good")

	pod := testPod("flood")
	ctx := context.Background()
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer("flood-c", pod)})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	for _, id := range []string{"10-logflood", "11-spew"} {
		if reason := e.waitDropped(id); !strings.Contains(reason, "CreateContainer") {
			t.Errorf("%s dropped for %q", id, reason)
		}
		lines, bytes, invalid, longest := 0, 0, 0, 0
		for _, entry := range e.logged(logrus.Fields{"plugin": id}) {
			lines++
			bytes += len(entry.Message)
			longest = max(longest, len(entry.Message))
			if !utf8.ValidString(entry.Message) {
				invalid++
			}
		}
		t.Logf("%s: %d lines, %d bytes, longest %d, %d not valid UTF-8, in a call of %v", id, lines, bytes, longest, invalid, took)
		// 100 lines a second, the start of the window before the call and
		// the one after it, and a few lines nrikit logs itself about the
		// plugin (its drop, the summary of what was held back).
		if bound := 100*(int(took/time.Second)+2) + 10; lines > bound {
			t.Errorf("%s: %d lines logged in a call of %v, want at most %d", id, lines, took, bound)
		}
		if longest > 4<<10+len(" [cut]") || invalid > 0 {
			t.Errorf("%s: longest line %d bytes, %d lines not valid UTF-8; want at most 4 KiB, all valid", id, longest, invalid)
		}
	}
	if got := e.guestEvents("50-good"); len(got) < 2 || got[1] != "CreateContainer" {
		t.Errorf("good guest got %v", got)
	}
}
