// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"testing"

	"github.com/nrikit/nrikit/api"
)

// TestChaosFailsOnlyWhereAsked: with a certain failure limited to teardown
// events, teardown calls fail and setup calls and handshake calls do not.
func TestChaosFailsOnlyWhereAsked(t *testing.T) {
	h := mustHandler(t, Config{Name: "p", Index: "10", Chaos: &Chaos{Fail: 1, FailEvents: "stopcontainer"}})
	ctx := context.Background()
	if _, err := h.Configure(ctx, &api.ConfigureRequest{}); err != nil {
		t.Fatalf("Configure failed: %v", err)
	}
	if _, err := h.CreateContainer(ctx, &api.CreateContainerRequest{}); err != nil {
		t.Fatalf("CreateContainer failed: %v", err)
	}
	if _, err := h.StopContainer(ctx, &api.StopContainerRequest{}); err == nil {
		t.Fatal("StopContainer did not fail")
	}
}

func TestChaosAndFloodConfigChecked(t *testing.T) {
	for _, cfg := range []Config{
		{Chaos: &Chaos{Hang: 2}},
		{Chaos: &Chaos{FailEvents: "nosuchevent"}},
		{Flood: &Flood{Count: 0}},
	} {
		if err := cfg.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("Validate(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}
