// SPDX-License-Identifier: Apache-2.0

//go:build nrikit_no_wasm || nri_no_wasm

// Without WASM support (nrikit_no_wasm, nri_no_wasm): WASM plugins are skipped and reported.

package relay

import (
	"context"
	"path/filepath"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
)

// wasmSkipReason is why a build with the nrikit_no_wasm (or the reference's
// nri_no_wasm) tag skips a module.
const wasmSkipReason = "WASM plugins are not supported: this build leaves WASM support out (tag nrikit_no_wasm or nri_no_wasm)"

// loadWASM skips the WASM modules of the plugin path, with a warning each.
func (r *Relay) loadWASM(_ context.Context, modules []launch.Candidate) {
	for _, c := range modules {
		r.log.WithField("path", c.Path).WithField("reason", wasmSkipReason).Warn("nrikit: pre-installed plugin skipped")
		r.announce(nri.Change{Change: nri.Skipped, Plugin: filepath.Base(c.Path), Kind: nri.WASM.String(), Reason: wasmSkipReason})
	}
}
