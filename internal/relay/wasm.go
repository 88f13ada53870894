// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

// Loading WASM plugins and running each guest as a plugin.

package relay

import (
	"context"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/wasmhost"
)

// loadWASM loads the WASM modules of the plugin path in-process and
// handshakes each one as soon as it is loaded. Modules are compiled one after
// another: compiling is CPU-bound, and a module found under several names is
// then compiled once, the others taking its code from the shared cache.
func (r *Relay) loadWASM(ctx context.Context, modules []launch.Candidate) {
	cache := r.newWASMCache()
	defer cache.Release()
	var wg sync.WaitGroup
	for _, c := range modules {
		p, err := r.loadGuest(ctx, c, cache)
		if err != nil {
			r.joinFailed(ctx, nri.WASM, 0, &nri.PluginError{Plugin: c.ID(), Op: nri.PhaseStart, Err: err})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.joinFailed(ctx, nri.WASM, 0, r.handshake(ctx, p))
		}()
	}
	wg.Wait()
}

// newWASMCache returns a compilation cache with one reference, the
// caller's. A cache directory that cannot be used is logged and the cache
// kept in memory.
func (r *Relay) newWASMCache() *wasmhost.SharedCache {
	dir := r.cfg.WASM.CacheDir
	c, err := wasmhost.NewSharedCache(dir)
	if err != nil {
		r.log.WithField("dir", dir).WithError(err).Warn("nrikit: WASM compilation cache directory unusable; compiling in memory")
	}
	return c
}

func (r *Relay) loadGuest(ctx context.Context, c launch.Candidate, cache *wasmhost.SharedCache) (*plugin, error) {
	log := r.log.WithField("plugin", c.ID())
	glog := newGuestLog(log)
	output := log.WithField("output", true)
	cfg := wasmhost.Config{
		ID:          c.ID(),
		Path:        c.Path,
		MemoryLimit: r.cfg.WASM.MemoryLimit,
		Cache:       cache.Compiled(),
		InitTimeout: r.cfg.Registration,
		Log:         func(level wasmhost.Level, msg string) { glog.line(log, logrusLevel(level), msg) },
		Output:      func(line string) { glog.line(output, logrus.InfoLevel, line) },
	}
	cache.Acquire()
	start := time.Now()
	g, err := wasmhost.Load(ctx, cfg)
	if err != nil {
		cache.Release()
		return nil, err
	}
	log.WithField("took", time.Since(start).Round(time.Millisecond)).Debug("nrikit: WASM plugin loaded")
	conn := &wasmConn{guest: g, release: sync.OnceFunc(cache.Release), log: glog}
	p := r.newPlugin(c.Index, c.Name, nri.WASM, wasmService{g}, conn)
	p.config = c.Config
	return p, nil
}

// logrusLevel maps a guest's log level as the reference runtime does: an
// unspecified level is debug.
func logrusLevel(l wasmhost.Level) logrus.Level {
	switch l {
	case wasmhost.LevelInfo:
		return logrus.InfoLevel
	case wasmhost.LevelWarn:
		return logrus.WarnLevel
	case wasmhost.LevelError:
		return logrus.ErrorLevel
	}
	return logrus.DebugLevel
}

// wasmConn is the "connection" of a WASM plugin: its instance. It is lost
// when a call crashes the instance.
type wasmConn struct {
	guest   *wasmhost.Guest
	release func() // the compilation cache, once
	log     *guestLog
}

func (c *wasmConn) Lost() <-chan struct{} { return c.guest.Dead() }

// close stops a call in progress and closes the instance, which returns its
// memory and, with the last user of the module, its compiled code.
func (c *wasmConn) Close() {
	c.guest.Close()
	c.release()
	c.log.flush()
}

func (c *wasmConn) Stop(context.Context) error {
	c.Close()
	return nil
}

func (c *wasmConn) PID() int { return 0 }

// PanicOf is the panic in the host's code that ended the guest, if one did.
func (c *wasmConn) PanicOf() *panics.Error {
	if crash := c.guest.Crash(); crash != nil {
		return panicIn(crash)
	}
	return nil
}

func (c *wasmConn) ExitStatus(time.Duration) string { return c.guest.Status() }
func (c *wasmConn) Output() []nri.OutputLine        { return nil }
