// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

// The shared compilation cache of the WASM plugins loaded together.

package wasmhost

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero"
)

// SharedCache is the compilation cache of the WASM plugins loaded together.
// It is closed when the last of them is closed: its engine holds their code.
type SharedCache struct {
	cache wazero.CompilationCache
	mu    sync.Mutex
	refs  int
}

// NewSharedCache returns a cache with one reference, the caller's. With a
// cache directory the code also goes to disk for the next start; with a
// directory that cannot be used it returns a cache in memory and the error,
// for the caller to log.
func NewSharedCache(dir string) (*SharedCache, error) {
	c := &SharedCache{refs: 1}
	var err error
	if dir != "" {
		if c.cache, err = wazero.NewCompilationCacheWithDir(dir); err == nil {
			return c, nil
		}
	}
	c.cache = wazero.NewCompilationCache()
	return c, err
}

// Compiled is the cache to pass in Config.Cache.
func (c *SharedCache) Compiled() wazero.CompilationCache { return c.cache }

// Acquire takes a reference, for one more plugin.
func (c *SharedCache) Acquire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refs++
}

// Release gives a reference back; the last one closes the cache.
func (c *SharedCache) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refs--; c.refs == 0 {
		_ = c.cache.Close(context.Background())
	}
}
