// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	wapi "github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/regfile"
	"github.com/nrikit/nrikit/internal/syncx"
)

// live counts the instances of this process that are not closed, for tests
// and diagnostics.
var live atomic.Int64

// Live is the number of guest instances loaded and not yet closed.
func Live() int64 { return live.Load() }

// Guest is one loaded WASM plugin: one instance of its module, in a wazero
// runtime of its own, so that its memory ceiling and its death concern it
// alone.
type Guest struct {
	cfg     Config
	runtime wazero.Runtime
	module  wapi.Module
	malloc  wapi.Function
	free    wapi.Function
	out     *lineWriter

	running chan struct{} // one slot: the call in progress
	// callDone is the Done channel of the call in progress: a guest asleep
	// in the host wakes when it closes.
	callDone atomic.Pointer[<-chan struct{}]
	cancel   atomic.Pointer[context.CancelFunc] // of the call in progress

	closing   chan struct{} // closed by Close: no new calls
	closeOnce sync.Once
	dead      chan struct{} // closed once the instance is closed
	deadOnce  sync.Once
	why       atomic.Pointer[string]     // how the instance ended
	cause     atomic.Pointer[CrashError] // the crash that ended it
	status    atomic.Pointer[string]     // the same, in a few words
}

// Load compiles the module at cfg.Path (or takes it from cfg.Cache),
// instantiates it with WASI preview 1 and the host's log function, runs its
// _initialize, and checks its ABI version. ctx bounds all of that.
func Load(ctx context.Context, cfg Config) (*Guest, error) {
	code, err := regfile.Read(cfg.Path, MaxModuleSize)
	if err != nil {
		return nil, fmt.Errorf("nrikit: WASM plugin %q: %w", cfg.Path, err)
	}
	rcfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true). // a call is aborted when its context ends
		WithMemoryLimitPages(cfg.memoryLimitPages())
	if cfg.Cache != nil {
		rcfg = rcfg.WithCompilationCache(cfg.Cache)
	}
	g := &Guest{
		cfg:     cfg,
		runtime: wazero.NewRuntimeWithConfig(ctx, rcfg),
		out:     &lineWriter{emit: cfg.Output},
		running: make(chan struct{}, 1),
		closing: make(chan struct{}),
		dead:    make(chan struct{}),
	}
	live.Add(1)
	if err := g.instantiateSafely(ctx, code); err != nil {
		g.kill(err.Error(), "failed to load")
		return nil, err
	}
	return g, nil
}

// instantiateSafely is instantiate, with a panic in the host's code (a
// module that the compiler or the checks cannot take) as the load's error.
func (g *Guest) instantiateSafely(ctx context.Context, code []byte) (err error) {
	defer func() {
		if p := (*panics.Error)(nil); errors.As(err, &p) {
			err = fmt.Errorf("nrikit: WASM plugin %q cannot be loaded: %w", g.cfg.Path, err)
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("wasmhost.load", g.cfg.ID)
	return g.instantiate(ctx, code)
}

func (g *Guest) instantiate(ctx context.Context, code []byte) error {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, g.runtime); err != nil {
		return fmt.Errorf("nrikit: WASI: %w", err)
	}
	if err := g.instantiateHost(ctx); err != nil {
		return fmt.Errorf("nrikit: host functions: %w", err)
	}
	if err := checkBounds(code); err != nil {
		return fmt.Errorf("nrikit: WASM plugin %q: malformed module: %w", g.cfg.Path, err)
	}
	cm, err := g.runtime.CompileModule(ctx, code)
	if err != nil {
		return fmt.Errorf("nrikit: compile WASM plugin: %w", err)
	}
	if err := checkExports(cm); err != nil {
		return fmt.Errorf("nrikit: WASM plugin %q: %w", g.cfg.Path, err)
	}
	if err := checkMemory(cm); err != nil {
		return fmt.Errorf("nrikit: WASM plugin %q: %w", g.cfg.Path, err)
	}
	if g.cfg.InitTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.InitTimeout)
		defer cancel()
	}
	mcfg := wazero.NewModuleConfig().
		WithStartFunctions("_initialize"). // a WASI reactor, not a command
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(g.sleep).
		WithRandSource(rand.Reader).
		WithStdout(g.out).WithStderr(g.out)
	done := ctx.Done()
	g.callDone.Store(&done)
	g.module, err = g.runtime.InstantiateModule(ctx, cm, mcfg)
	if err != nil {
		return fmt.Errorf("nrikit: initialize WASM plugin: %w%s", err, g.said())
	}
	g.malloc = g.module.ExportedFunction(exportMalloc)
	g.free = g.module.ExportedFunction(exportFree)
	res, err := g.module.ExportedFunction(exportVersion).Call(ctx)
	if err != nil {
		return fmt.Errorf("nrikit: WASM plugin %s: %w%s", exportVersion, err, g.said())
	}
	if res[0] != APIVersion {
		return fmt.Errorf("nrikit: WASM plugin speaks guest API version %d, this host version %d", res[0], APIVersion)
	}
	return nil
}

// Has tells whether the guest exports a function.
func (g *Guest) Has(export string) bool {
	return g.module.ExportedFunction(export) != nil
}

// Call calls a method export with an encoded request and returns the encoded
// answer. A guest's own error answer is a *GuestError; a *CrashError means
// the instance is closed. ctx bounds the call: when it ends, the guest is
// stopped where it runs, which kills it.
func (g *Guest) Call(ctx context.Context, export string, req []byte) ([]byte, error) {
	fn := g.module.ExportedFunction(export)
	if fn == nil {
		return nil, fmt.Errorf("%w %s", ErrNoExport, export)
	}
	select {
	case g.running <- struct{}{}:
	case <-g.closing:
		return nil, ErrDead
	case <-g.dead:
		return nil, ErrDead
	case <-ctx.Done():
		return nil, fmt.Errorf("an earlier call is still running: %w", context.Cause(ctx))
	}
	defer func() { <-g.running }()
	if g.isDead() || g.isClosing() {
		return nil, ErrDead
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err // starting now would only kill the guest
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g.begin(ctx, cancel)
	defer g.end()
	if g.isClosing() { // Close may have looked for a call to cancel before begin
		return nil, ErrDead
	}
	rsp, err := g.callSafely(ctx, export, fn, req)
	var crash *CrashError
	if errors.As(err, &crash) {
		g.cause.CompareAndSwap(nil, crash)
		g.kill(crash.Error(), statusOf(crash.Err))
	}
	return rsp, err
}

func (g *Guest) begin(ctx context.Context, cancel context.CancelFunc) {
	done := ctx.Done()
	g.callDone.Store(&done)
	g.cancel.Store(&cancel)
	g.out.takeFirst() // what an earlier call said explains nothing now
}

func (g *Guest) end() {
	g.cancel.Store(nil)
}

// callSafely is call, with a panic in the host's code during the call as a
// crash of the guest: the guest's state is unknown after it.
func (g *Guest) callSafely(ctx context.Context, export string, fn wapi.Function, req []byte) (rsp []byte, err error) {
	defer func() {
		if p := (*panics.Error)(nil); errors.As(err, &p) {
			err = &CrashError{Export: export, Err: p, Said: g.out.takeFirst()}
		}
	}()
	defer panics.Recover(&err)
	panics.Inject("wasmhost.call", g.cfg.ID)
	return g.call(ctx, export, fn, req)
}

// call passes req in guest memory the guest allocated, calls fn, and copies
// the answer out before freeing it.
func (g *Guest) call(ctx context.Context, export string, fn wapi.Function, req []byte) ([]byte, error) {
	crash := func(in string, err error) error {
		return &CrashError{Export: in, Err: err, Said: g.out.takeFirst()}
	}
	mem := memoryOf(g.module)
	if mem == nil { // refused at load
		return nil, crash(export, errors.New("the guest has no linear memory"))
	}
	var ptr uint64
	if len(req) > 0 {
		res, err := g.malloc.Call(ctx, uint64(len(req)))
		if err != nil {
			return nil, crash(exportMalloc, err)
		}
		ptr = uint64(uint32(res[0]))
		if ptr == 0 || !mem.Write(uint32(ptr), req) {
			return nil, crash(exportMalloc, fmt.Errorf("no room for a request of %d bytes (got offset %d of %d bytes of memory)", len(req), ptr, mem.Size()))
		}
	}
	res, err := fn.Call(ctx, ptr, uint64(len(req)))
	if err != nil {
		return nil, crash(export, err)
	}
	if ptr != 0 {
		if _, err := g.free.Call(ctx, ptr); err != nil {
			return nil, crash(exportFree, err)
		}
	}
	rptr, rsize, isError := splitResult(res[0])
	var answer []byte
	if rsize > MaxAnswer {
		return nil, crash(export, fmt.Errorf("answer of %d bytes is over the limit of %d", rsize, MaxAnswer))
	}
	if rsize > 0 {
		view, ok := mem.Read(rptr, rsize)
		if !ok {
			return nil, crash(export, fmt.Errorf("answer of %d bytes at offset %d lies outside its %d bytes of memory", rsize, rptr, mem.Size()))
		}
		answer = bytes.Clone(view) // guest memory moves when it grows
	}
	if rptr != 0 {
		if _, err := g.free.Call(ctx, uint64(rptr)); err != nil {
			return nil, crash(exportFree, err)
		}
	}
	if isError {
		return nil, &GuestError{Msg: truncate(string(answer), maxLine)}
	}
	return answer, nil
}

// said is " (the guest said: <first output line>)" when the guest wrote
// something during the call: a Go guest's panic or fatal error.
func (g *Guest) said() string {
	if line := g.out.takeFirst(); line != "" {
		return fmt.Sprintf(" (the guest said: %q)", line)
	}
	return ""
}

// sleep is the guest's nanosleep: it ends early when the call in progress
// ends, so that a guest asleep in the host cannot outlive its deadline.
func (g *Guest) sleep(ns int64) {
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	var done <-chan struct{}
	if p := g.callDone.Load(); p != nil {
		done = *p
	}
	select {
	case <-t.C:
	case <-done:
	case <-g.closing:
	}
}

// Dead is closed once the instance is closed: by a crash or by Close.
func (g *Guest) Dead() <-chan struct{} { return g.dead }

// Why says how the instance ended, "" while it lives.
func (g *Guest) Why() string {
	if p := g.why.Load(); p != nil {
		return *p
	}
	return ""
}

// Crash is the crash that ended the instance; nil while it lives or when
// Close ended it.
func (g *Guest) Crash() *CrashError { return g.cause.Load() }

// Status says in a few words how a crash ended the instance ("exited with
// code 2", "trapped", "stopped at its deadline"); "" while it lives or when
// Close ended it.
func (g *Guest) Status() string {
	if p := g.status.Load(); p != nil {
		return *p
	}
	return ""
}

func statusOf(err error) string {
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		return "stopped at its deadline"
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled:
		return "stopped"
	case errors.As(err, &exit):
		return fmt.Sprintf("exited with code %d", exit.ExitCode())
	case strings.HasPrefix(err.Error(), "wasm error:"): // wazero's runtime traps
		return "trapped"
	case errors.As(err, new(*panics.Error)):
		return "made the host panic"
	}
	return "broke the ABI"
}

func (g *Guest) isDead() bool { return syncx.Closed(g.dead) }

func (g *Guest) isClosing() bool { return syncx.Closed(g.closing) }

// kill closes the instance and its runtime, returning its memory and code.
// The caller holds the call slot, or no call ever ran.
func (g *Guest) kill(why, status string) {
	g.deadOnce.Do(func() {
		g.why.Store(&why)
		g.status.Store(&status)
		g.out.flush()
		_ = g.runtime.Close(context.Background())
		live.Add(-1)
		close(g.dead)
	})
}

// Close stops a call in progress, waits for it to return, and closes the
// instance. It is idempotent. A call stops promptly: wazero checks for the
// end of its context on every function entry and loop back-edge, and the
// guest's sleep is cut short.
func (g *Guest) Close() {
	g.closeOnce.Do(func() { close(g.closing) })
	if p := g.cancel.Load(); p != nil {
		(*p)()
	}
	select {
	case g.running <- struct{}{}:
		defer func() { <-g.running }()
	case <-g.dead:
		return
	}
	g.kill("closed by the runtime", "")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " [cut]"
}
