//go:build !nrikit_no_wasm && !nri_no_wasm

// The shared compilation cache of the WASM plugins loaded together.

package adaptation

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero"
)

// wasmCache is the compilation cache of the WASM plugins loaded together. It
// is closed when the last of them is closed: its engine holds their code.
type wasmCache struct {
	cache wazero.CompilationCache
	mu    sync.Mutex
	refs  int
}

// newWASMCache returns a cache with one reference, the caller's. With a
// cache directory the code also goes to disk for the next start; a directory
// that cannot be used is logged and the cache kept in memory.
func (a *Adaptation) newWASMCache() *wasmCache {
	c := &wasmCache{refs: 1}
	if dir := a.opts.wasm.cacheDir; dir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err == nil {
			c.cache = cache
			return c
		}
		a.log.WithField("dir", dir).WithError(err).Warn("nrikit: WASM compilation cache directory unusable; compiling in memory")
	}
	c.cache = wazero.NewCompilationCache()
	return c
}

func (c *wasmCache) acquire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refs++
}

func (c *wasmCache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refs--; c.refs == 0 {
		_ = c.cache.Close(context.Background())
	}
}
