// SPDX-License-Identifier: Apache-2.0

// Package interoptest builds the programs under testdata/interop for tests:
// the plugins on the reference stub (modern, legacy), the WASM plugins on the
// reference's WASM guest API (wasm, wasm-legacy), and the checks that
// compare nrikit with the reference: linking side by side (sidebyside), the
// spec generator (specgen) and the api conversions (convert). Each of those
// directories is a Go module of its own that requires the reference module
// github.com/containerd/nri, so the main module never imports it; building
// one needs that module in the module cache or a reachable module proxy.
//
// A build that fails fails the test: interop is a non-negotiable property of
// nrikit, so a missing peer must never turn into a skipped test.
//
// Binaries are built once per test process into one temporary directory.
// Call Cleanup when the tests are done to remove it, e.g. from TestMain:
//
//	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
//		interoptest.Cleanup()
//		os.Exit(code)
//	}))
package interoptest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Module is the main module's path.
const Module = "github.com/nrikit/nrikit"

// ReferenceModule is the module the programs under testdata/interop build on.
const ReferenceModule = "github.com/containerd/nri"

// BuildTimeout bounds one go build, module downloads included.
const BuildTimeout = 10 * time.Minute

var (
	mu        sync.Mutex
	outDir    string                       // created on first use; removed by Cleanup
	builds    = map[string]*build{}        // by module directory name
	durations = map[string]time.Duration{} // of finished builds, by module
)

// build is the once-per-process build of one module.
type build struct {
	once sync.Once
	path string // the binary
	err  error  // why it could not be built
}

// checkPrograms are the modules under testdata/interop that are checks, not
// plugins.
var checkPrograms = map[string]bool{"sidebyside": true, "specgen": true, "convert": true}

// Binary returns the path of a binary built from testdata/interop/<module>
// (e.g. "modern", "legacy", "sidebyside"), building it on the first call for
// that module in this process. The binary is <dir>/<module>-plugin, except
// for the checks (sidebyside, specgen, convert), which are not plugins:
// <dir>/<module>, and for the modules named wasm*, which are built as
// WebAssembly reactor modules (GOOS=wasip1 GOARCH=wasm -buildmode=c-shared):
// <dir>/<module>.wasm, without an execute bit (copy it into a plugin
// directory as NN-name, mode 0755, to make it a plugin). It fails the test
// with go build's output if the module cannot be built, typically because
// the reference module could not be fetched.
func Binary(t testing.TB, module string) string {
	t.Helper()
	path, err := binary(module)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return path
}

// BuildDuration reports how long go build of module took in this process,
// or 0 if it has not finished. Tests log it to show cold and warm times.
func BuildDuration(module string) time.Duration {
	mu.Lock()
	defer mu.Unlock()
	return durations[module]
}

func binary(module string) (string, error) {
	if module == "" || module != filepath.Base(module) || strings.HasPrefix(module, ".") {
		return "", fmt.Errorf("interoptest: %q is not a directory name under testdata/interop", module)
	}
	mu.Lock()
	b := builds[module]
	if b == nil {
		b = &build{}
		builds[module] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		var took time.Duration
		b.path, took, b.err = buildModule(module)
		mu.Lock()
		durations[module] = took
		mu.Unlock()
	})
	return b.path, b.err
}

func buildModule(module string) (string, time.Duration, error) {
	dir, err := ModuleDir(module)
	if err != nil {
		return "", 0, err
	}
	out, err := binDir()
	if err != nil {
		return "", 0, err
	}
	goTool, err := GoTool()
	if err != nil {
		return "", 0, err
	}
	path := filepath.Join(out, module+"-plugin")
	args := []string{"build", "-buildvcs=false"}
	env := BuildEnv()
	switch {
	case checkPrograms[module]:
		path = filepath.Join(out, module)
	case IsWASM(module):
		path = filepath.Join(out, module+".wasm")
		args = append(args, "-buildmode=c-shared")
		env = append(Without(env, "GOOS", "GOARCH", "CGO_ENABLED"), "GOOS=wasip1", "GOARCH=wasm")
	}

	ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, append(args, "-o", path, ".")...)
	cmd.Dir = dir
	cmd.Env = env
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (after %v)", ctx.Err(), BuildTimeout)
		}
		why := fmt.Sprintf("The reference module %s (or another dependency of testdata/interop/%s) could not be fetched. "+
			"These tests need it and are not skipped without it: make the Go module proxy (%s) reachable "+
			"or fill the module cache (cd %s && go mod download), then rerun.",
			ReferenceModule, module, goProxy(goTool), dir)
		if !looksLikeFetchFailure(output.String()) {
			why = fmt.Sprintf("The output does not look like a failure to fetch the reference module %s: "+
				"read it for a compile error in testdata/interop/%s or in the nrikit packages it builds.",
				ReferenceModule, module)
		}
		return "", took, fmt.Errorf("interoptest: cannot build testdata/interop/%s: %v\n%s\n"+
			"%s %s in %s said:\n%s",
			module, err, why, goTool, strings.Join(cmd.Args[1:], " "), dir, output.String())
	}
	return path, took, nil
}

// IsWASM tells whether testdata/interop/<module> builds a WASM plugin.
func IsWASM(module string) bool { return strings.HasPrefix(module, "wasm") }

// fetchFailureHints are phrases of go command output about module downloads.
var fetchFailureHints = []string{
	"module lookup disabled", "go: downloading", "missing go.sum entry", "reading https://",
	"dial tcp", "no such host", "connection refused", "i/o timeout", "TLS handshake",
	"proxy", "GOPROXY", "GOFLAGS=-mod=mod", "verifying ", "unrecognized import path",
}

func looksLikeFetchFailure(output string) bool {
	for _, h := range fetchFailureHints {
		if strings.Contains(output, h) {
			return true
		}
	}
	return false
}

// binDir returns the process-wide output directory, creating it on first use.
func binDir() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if outDir == "" {
		dir, err := os.MkdirTemp("", "nrikit-interop-")
		if err != nil {
			return "", fmt.Errorf("interoptest: %w", err)
		}
		outDir = dir
	}
	return outDir, nil
}

// Cleanup removes the binaries built so far. Binaries requested afterwards
// are built again into a new directory.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if outDir != "" {
		os.RemoveAll(outDir)
		outDir = ""
	}
	builds = map[string]*build{}
	durations = map[string]time.Duration{}
}

// ModuleDir returns the absolute path of testdata/interop/<module>.
func ModuleDir(module string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "testdata", "interop", module)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("interoptest: testdata/interop/%s is not a Go module: %w", module, err)
	}
	return dir, nil
}

// RepoRoot returns the directory of the main module's go.mod: found from this
// source file's location, or, when that is not a usable path (-trimpath), by
// walking up from the working directory.
func RepoRoot() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if isMainModule(filepath.Join(dir, "go.mod")) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("interoptest: cannot find the go.mod of %s above %q", Module, starts)
}

func isMainModule(gomod string) bool {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == Module
		}
	}
	return false
}

// GoTool returns the go command to build with: the one of the toolchain that
// built this test (GOROOT/bin/go), else the first go in PATH.
func GoTool() (string, error) {
	exe := "go"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	//lint:ignore SA1019 the toolchain's root is exactly what is wanted here.
	if root := runtime.GOROOT(); root != "" {
		path := filepath.Join(root, "bin", exe)
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return path, nil
		}
	}
	path, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("interoptest: no go command in GOROOT/bin or PATH: %w", err)
	}
	return path, nil
}

// BuildEnv is the environment for go commands run on the interop modules:
// this process's, without a go.work (each module stands alone) and without
// GOLANG_PROTOBUF_REGISTRATION_CONFLICT (which the side-by-side check must
// run without).
func BuildEnv() []string {
	env := Without(os.Environ(), "GOWORK", "GOLANG_PROTOBUF_REGISTRATION_CONFLICT")
	return append(env, "GOWORK=off")
}

// Without returns env without the variables named.
func Without(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
next:
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		for _, n := range names {
			if name == n {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// goProxy reports the module proxy setting go would use, for error messages.
func goProxy(goTool string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "env", "GOPROXY")
	cmd.Env = BuildEnv()
	out, err := cmd.Output()
	if err != nil {
		return "GOPROXY unknown"
	}
	return "GOPROXY=" + strings.TrimSpace(string(out))
}
