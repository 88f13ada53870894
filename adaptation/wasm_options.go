// SPDX-License-Identifier: Apache-2.0

// The WASM options: memory limit and compilation cache directory.

package adaptation

import "fmt"

// DefaultWASMMemoryLimit is the default ceiling of a WASM plugin's linear
// memory: enough for a guest to take a big node's Synchronize, little enough
// that a guest that grows without bound cannot take the runtime's memory.
const DefaultWASMMemoryLimit = 512 << 20

// maxWASMMemory is all that 32-bit WebAssembly memory can address.
const maxWASMMemory = 4 << 30

// wasmOptions configure the WASM plugins of the plugin path.
type wasmOptions struct {
	memoryLimit uint64
	cacheDir    string
}

// WithWASMMemoryLimit caps the linear memory of each WASM plugin, in bytes
// (rounded up to 64 KiB pages; default DefaultWASMMemoryLimit, at most 4 GiB).
// A guest that needs more fails to allocate (a Go guest then exits) and is
// dropped. Builds with the nrikit_no_wasm or nri_no_wasm tag ignore it.
func WithWASMMemoryLimit(bytes uint64) Option {
	return func(o *options) error {
		if bytes == 0 || bytes > maxWASMMemory {
			return fmt.Errorf("nrikit: WASM memory limit %d is not in (0, 4 GiB]", bytes)
		}
		o.wasm.memoryLimit = bytes
		return nil
	}
}

// WithWASMCompilationCacheDir keeps the machine code compiled from WASM
// plugins in dir, so that a runtime restarted with the same plugins loads
// them without compiling again (compiling a Go-built plugin takes seconds).
// The directory must be writable by the runtime alone. Default: no
// directory; code is shared in memory between plugins loaded together.
// Builds with the nrikit_no_wasm or nri_no_wasm tag ignore it.
func WithWASMCompilationCacheDir(dir string) Option {
	return func(o *options) error {
		if dir == "" {
			return fmt.Errorf("nrikit: empty WASM compilation cache directory")
		}
		o.wasm.cacheDir = dir
		return nil
	}
}
