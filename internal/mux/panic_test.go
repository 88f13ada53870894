// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/panics"
)

// A panic in the trunk reader, in code the peer's bytes steer, ends that
// trunk with the panic as its error, and its connections with it; the
// process goes on.
func TestReaderPanicEndsTheTrunk(t *testing.T) {
	defer panics.SetHook(func(place, _ string) {
		if place == "mux.read" {
			panic("injected")
		}
	})()
	m, raw := rawPeer(t)
	c := mustOpen(t, m, 1)
	writeRaw(t, raw, rawFrame(1, []byte("hello")))
	await(t, goAsync(func() struct{} { <-m.Done(); return struct{}{} }), "the trunk's end")
	var pe *panics.Error
	if !errors.As(m.Err(), &pe) || pe.Error() != "nrikit: panic: injected" || !strings.Contains(pe.Stack, "readFrames") {
		t.Fatalf("trunk error %v, want the panic with its stack", m.Err())
	}
	if _, err := c.Read(make([]byte, 8)); err == nil {
		t.Error("its connection still reads")
	}
}
