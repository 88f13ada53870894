// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"time"

	"github.com/tetratelabs/wazero"
)

// PageSize is the size of a WebAssembly memory page.
const PageSize = 64 << 10

// MaxModuleSize bounds a module file, which Load reads whole before
// compiling it (and compiling takes several times its size again). Go-built
// wasip1 plugins are 2 to 20 MiB, TinyGo ones well under 1 MiB: 256 MiB is
// ten times the largest real guest, and still stops a huge file that only
// starts like a module from taking gigabytes of the runtime's memory.
const MaxModuleSize = 256 << 20

// Config says how to load one guest.
type Config struct {
	// ID names the guest ("idx-name") in errors.
	ID string
	// Path is the module file.
	Path string
	// MemoryLimit caps the guest's linear memory, in bytes, rounded up to
	// whole pages; 0 leaves wazero's limit of 4 GiB.
	MemoryLimit uint64
	// Cache shares compiled code between guests of the same module; nil
	// compiles for this guest alone.
	Cache wazero.CompilationCache
	// InitTimeout bounds the guest's own start-up (_initialize and the
	// version handshake), not the compilation; 0 leaves it to Load's ctx.
	InitTimeout time.Duration
	// Log receives what the guest logs through the host's log function.
	Log func(level Level, msg string)
	// Output receives each line the guest writes to stdout or stderr (a Go
	// guest's panic message, for one); nil discards them.
	Output func(line string)
}

// Level is a LogRequest level.
type Level int32

// Levels of LogRequest.Level.
const (
	LevelUnspecified Level = 0
	LevelDebug       Level = 1
	LevelInfo        Level = 2
	LevelWarn        Level = 3
	LevelError       Level = 4
)

func (c Config) memoryLimitPages() uint32 {
	const maxPages = 1 << 16
	if c.MemoryLimit == 0 {
		return maxPages
	}
	pages := (c.MemoryLimit + PageSize - 1) / PageSize
	if pages > maxPages {
		return maxPages
	}
	return uint32(pages)
}
