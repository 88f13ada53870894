// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package adaptation_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
	"github.com/nrikit/nrikit/internal/wasmhost"
	"github.com/nrikit/nrikit/internal/wasmtest"
)

// TestWASMModuleWithoutMemoryRefused: a module with the plugin exports and
// signatures but no linear memory used to pass every load check and kill the
// runtime process at Start, writing the first request through a nil memory.
// It is refused at load, with a warning and a PluginChange that name the
// file and the reason, and the plugin beside it starts and gets its events.
func TestWASMModuleWithoutMemoryRefused(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, wasmOptions(t, adaptation.WithPluginChanges(changes.add))...)
	path := filepath.Join(e.pluginDir, "50-nomem")
	writeFile(t, path, string(wasmtest.NoMemory()), 0o755)
	e.preinstall("60", "proc", testplugin.Config{})
	e.start()
	e.waitPlugins("60-proc")

	reason := `nrikit: WASM plugin "` + path + `": it exports no linear memory to pass requests in`
	expectChanges(t, changes, "50-nomem", [2]string{"failed start:", reason})
	if len(e.logged(logrus.Fields{"plugin": "50-nomem", "error": reason})) != 1 {
		e.dumpLog()
		t.Errorf("no warning naming the file and the reason")
	}
	runLifecycle(t, e.a, "pm")
	if got := e.events("proc"); !equal(got, fullLifecycleEvents) {
		t.Errorf("the plugin beside it got %v", got)
	}
	if n := wasmhost.Live(); n != 0 {
		t.Errorf("%d WASM instances open", n)
	}
	if strings.Contains(strings.Join(changes.of("60-proc"), "\n"), "left") {
		t.Errorf("the healthy plugin left: %q", changes.of("60-proc"))
	}
}

// A panic in the host's code during a WASM guest's call ends that guest:
// it is dropped, reported with the panic, and the plugin beside it gets
// every event.
func TestWASMPanicInGuestCallDropsThatGuest(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, wasmOptions(t, adaptation.WithPluginChanges(changes.add))...)
	e.wasmPreinstall("wasm", "30", "guest")
	e.preinstall("60", "proc", testplugin.Config{})
	e.start()
	e.waitPlugins("30-guest", "60-proc")
	injectPanic(t, "wasmhost.call", "30-guest")
	runLifecycle(t, e.a, "pw")
	e.expectPanicDrop(t, changes, "30-guest", "wasmhost.call")
	if got := e.events("proc"); !equal(got, fullLifecycleEvents) {
		t.Errorf("the plugin beside it got %v", got)
	}
	if n := wasmhost.Live(); n != 0 {
		t.Errorf("%d WASM instances open after the guest was dropped", n)
	}
}
