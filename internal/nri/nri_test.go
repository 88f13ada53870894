// SPDX-License-Identifier: Apache-2.0

package nri

import (
	"errors"
	"testing"
)

func TestKindNames(t *testing.T) {
	want := map[Kind]string{External: "external", Preinstalled: "pre-installed", Builtin: "builtin", WASM: "wasm"}
	for k, name := range want {
		if k.String() != name {
			t.Errorf("%d names itself %q, want %q", k, k.String(), name)
		}
	}
}

func TestRefusedConnection(t *testing.T) {
	for _, tc := range []struct {
		c    Change
		want bool
	}{
		{Change{Change: Failed, Kind: "external"}, true},
		{Change{Change: Failed, Kind: "external", Phase: PhaseRegister}, true},
		{Change{Change: Failed, Kind: "external", Phase: PhaseConfigure}, false},
		{Change{Change: Failed, Kind: "pre-installed", Phase: PhaseRegister}, false},
		{Change{Change: Left, Kind: "external"}, false},
	} {
		if got := tc.c.RefusedConnection(); got != tc.want {
			t.Errorf("%+v: refused connection %v, want %v", tc.c, got, tc.want)
		}
	}
}

func TestPluginErrorText(t *testing.T) {
	cause := errors.New("nrikit: plugin timed out")
	err := &PluginError{Plugin: "10-foo", Op: "CreateContainer", Err: cause}
	if got, want := err.Error(), "nrikit: plugin 10-foo: CreateContainer: plugin timed out"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if !errors.Is(err, cause) {
		t.Error("the error does not wrap its cause")
	}
}
