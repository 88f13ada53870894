// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// injectPanic makes the first pass through place, for subject ("" for
// any; a suffix of it will do), panic, until the test ends.
func injectPanic(t *testing.T, place, subject string) {
	var once sync.Once
	t.Cleanup(panics.SetHook(func(at, on string) {
		if at == place && strings.HasSuffix(on, subject) {
			once.Do(func() { panic("injected at " + place) })
		}
	}))
}

// panicEnv starts two healthy process plugins, 10-first and 20-second.
func panicEnv(t *testing.T, more ...adaptation.Option) (*env, *changeLog) {
	changes := newChangeLog()
	e := newEnv(t, append(more, adaptation.WithPluginChanges(changes.add))...)
	e.preinstall("10", "first", testplugin.Config{})
	e.preinstall("20", "second", testplugin.Config{})
	e.start()
	e.waitPlugins("10-first", "20-second")
	return e, changes
}

// expectPanicDrop checks that id was dropped for the panic, reported so, and
// logged with the panic's stack.
func (e *env) expectPanicDrop(t *testing.T, changes *changeLog, id, place string) {
	t.Helper()
	reason := e.waitDropped(id)
	if !strings.Contains(reason, "nrikit: panic: injected at "+place) {
		t.Errorf("%s dropped for %q, want the panic", id, reason)
	}
	expectChanges(t, changes, id, [2]string{"joined", ""}, [2]string{"left", "nrikit: panic: injected at " + place})
	for _, entry := range e.logged(logrus.Fields{"plugin": id}) {
		if entry.Message == "nrikit: plugin dropped" {
			if stack, _ := entry.Data["stack"].(string); !strings.Contains(stack, "goroutine") {
				t.Errorf("the drop's log line has no stack: %v", entry.Data)
			}
		}
	}
}

// A panic in a call to a plugin (in code its reply steers: decoding,
// merging) drops that plugin; the event goes on, and the other plugin gets
// every event.
func TestPanicInPluginCallDropsThatPlugin(t *testing.T) {
	e, changes := panicEnv(t)
	injectPanic(t, "plugin.call", "10-first")
	runLifecycle(t, e.a, "pp")
	e.expectPanicDrop(t, changes, "10-first", "plugin.call")
	if got := e.events("second"); !equal(got, fullLifecycleEvents) {
		t.Errorf("the other plugin got %v", got)
	}
	if got := e.events("first"); len(got) != 0 {
		t.Errorf("the dropped plugin got %v", got)
	}
}

// A panic in a connection's readers, in code the peer's bytes steer (the
// mux's trunk reader, the client's reading of replies), drops the plugin on
// that connection: the first reply read after it is armed is 10-first's
// answer to RunPodSandbox.
func TestPanicInConnectionReaderDropsThatPlugin(t *testing.T) {
	for _, place := range []struct{ at, on string }{{"mux.read", ""}, {"replies.read", ""}} {
		t.Run(place.at, func(t *testing.T) {
			e, changes := panicEnv(t)
			injectPanic(t, place.at, place.on)
			runLifecycle(t, e.a, "pr")
			e.expectPanicDrop(t, changes, "10-first", place.at)
			if got := e.events("second"); !equal(got, fullLifecycleEvents) {
				t.Errorf("the other plugin got %v", got)
			}
		})
	}
}

// A panic in the Runtime service a plugin calls (its handler, the pump that
// bounds the calls it has pending, the guard that reads them) fails that
// plugin's registration, with the panic as the reason (under
// "unregistered": it never completed); the plugins already there keep
// getting events.
func TestPanicInRuntimeServiceFailsThatPlugin(t *testing.T) {
	for _, place := range []struct{ at, on, frame string }{
		{"runtime.serve", "/RegisterPlugin", "recoverServed"},
		{"callbound.pump", "", "pumpMessages"},
		{"guard.read", "server", "guard.(*Conn).next"},
	} {
		t.Run(place.at, func(t *testing.T) {
			e, changes := panicEnv(t)
			injectPanic(t, place.at, place.on)
			e.external("30", "ext", testplugin.Config{})
			got := changes.waitFor(t, "unregistered", 1)
			if len(got) != 1 || !strings.HasPrefix(got[0], "failed register:") || !strings.Contains(got[0], "nrikit: panic: injected at "+place.at) {
				t.Fatalf("changes %q, want a failed registration for the panic", got)
			}
			logged := e.logged(logrus.Fields{"plugin": "unregistered", "phase": "register"})
			if len(logged) != 1 || !strings.Contains(fmt.Sprint(logged[0].Data["stack"]), place.frame) {
				t.Errorf("the failure's log lines %v, want one with the panic's stack", logged)
			}
			runLifecycle(t, e.a, "ps")
			for _, name := range []string{"first", "second"} {
				if got := e.events(name); !equal(got, fullLifecycleEvents) {
					t.Errorf("%s got %v", name, got)
				}
			}
		})
	}
}

// A panic while the Runtime service handles a plugin's unsolicited update
// drops that plugin; the other keeps getting events.
func TestPanicInUnsolicitedUpdateDropsThatPlugin(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	injectPanic(t, "runtime.serve", "/UpdateContainers")
	e.preinstall("10", "first", testplugin.Config{Flood: &testplugin.Flood{Count: 1}})
	e.preinstall("20", "second", testplugin.Config{})
	e.start()
	// The update comes once the plugin answered Synchronize, which may be
	// before it joined: it then fails to join instead of leaving.
	got := changes.waitFor(t, "10-first", 1)
	if got[0] == "joined : " {
		got = changes.waitFor(t, "10-first", 2)[1:]
	}
	if !strings.HasPrefix(got[0], "left") && !strings.HasPrefix(got[0], "failed synchronize:") ||
		!strings.Contains(got[0], "nrikit: panic: injected at runtime.serve") {
		t.Errorf("10-first: change %q, want it gone for the panic", got[0])
	}
	e.waitPlugins("20-second")
	runLifecycle(t, e.a, "pu")
	if got := e.events("second"); !equal(got, fullLifecycleEvents) {
		t.Errorf("the other plugin got %v", got)
	}
}

// A panic in the runtime's PluginChanges callback, on the report that a
// plugin joined, drops that plugin, reported as it leaves; the process and
// the other plugin go on.
func TestPanicInPluginChangesCallbackDropsThatPlugin(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	injectPanic(t, "changes.send", "10-first")
	e.preinstall("10", "first", testplugin.Config{})
	e.preinstall("20", "second", testplugin.Config{})
	e.start()
	e.waitPlugins("20-second")
	reason := e.waitDropped("10-first")
	if reason != "nrikit: panic: injected at changes.send" {
		t.Errorf("dropped for %q", reason)
	}
	expectChanges(t, changes, "10-first", [2]string{"left :", "nrikit: panic: injected at changes.send"})
	if n := len(e.logged(logrus.Fields{"plugin": "10-first", "change": adaptation.PluginJoined})); n != 1 {
		t.Errorf("%d log lines about the callback's panic, want 1", n)
	}
	runLifecycle(t, e.a, "pc")
	if got := e.events("second"); !equal(got, fullLifecycleEvents) {
		t.Errorf("the other plugin got %v", got)
	}
}

// waitDropped waits for the log line of a plugin's drop and returns its reason.
func (e *env) waitDropped(id string) string {
	e.t.Helper()
	deadline := time.After(waitLimit)
	for {
		changed := e.logSignal.changed()
		for _, entry := range e.logged(logrus.Fields{"plugin": id}) {
			if entry.Message == "nrikit: plugin dropped" {
				reason, _ := entry.Data["reason"].(string)
				return reason
			}
		}
		select {
		case <-changed:
		case <-deadline:
			e.t.Fatalf("%s was not dropped", id)
		}
	}
}

// panickingHandler panics in CreateContainer, as a built-in plugin with a
// bug might on a request it did not expect.
type panickingHandler struct{ *testplugin.Handler }

func (panickingHandler) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	panic("injected at builtin")
}

// A built-in plugin's handler that panics is dropped like any plugin whose
// call panicked; the process and the other plugin go on.
func TestPanicInBuiltinHandlerDropsThatPlugin(t *testing.T) {
	probe := newEnv(t)
	inner := probe.builtin("10", "buggy", testplugin.Config{})
	inner.Handler = panickingHandler{inner.Handler.(*testplugin.Handler)}
	changes := newChangeLog()
	e := newEnvAt(t, probe, adaptation.WithBuiltinPlugins(inner), adaptation.WithPluginChanges(changes.add))
	e.preinstall("20", "second", testplugin.Config{})
	e.start()
	e.waitPlugins("10-buggy", "20-second")
	runLifecycle(t, e.a, "pb")
	e.expectPanicDrop(t, changes, "10-buggy", "builtin")
	if got := e.events("second"); !equal(got, fullLifecycleEvents) {
		t.Errorf("the other plugin got %v", got)
	}
}

// panickingMetrics panics the first time a call of plugin's is recorded.
type panickingMetrics struct {
	*recordingMetrics
	plugin string
	once   sync.Once
}

func (m *panickingMetrics) PluginInvoked(plugin string, ev api.Event, o adaptation.Outcome, took time.Duration) {
	if plugin == m.plugin {
		m.once.Do(func() { panic("injected at metrics") })
	}
	m.recordingMetrics.PluginInvoked(plugin, ev, o, took)
}

// A panic in the runtime's metrics recorder, called with a plugin's name on
// the event path, is logged with its stack and loses that measurement; no
// plugin is blamed for the recorder's bug, and every event goes on.
func TestPanicInMetricsRecorderIsLogged(t *testing.T) {
	m := &panickingMetrics{recordingMetrics: newRecordingMetrics(), plugin: "10-first"}
	e, changes := panicEnv(t, adaptation.WithMetrics(m))
	runLifecycle(t, e.a, "pm")
	logged := e.logged(logrus.Fields{"plugin": "10-first"})
	found := false
	for _, entry := range logged {
		if entry.Message == "nrikit: the runtime's metrics recorder panicked" &&
			strings.Contains(fmt.Sprint(entry.Data["stack"]), "recordSafely") {
			found = true
		}
	}
	if !found {
		t.Error("no log line with the recorder's panic and its stack")
	}
	for _, name := range []string{"first", "second"} {
		if got := e.events(name); !equal(got, fullLifecycleEvents) {
			t.Errorf("%s got %v", name, got)
		}
	}
	for _, c := range changes.all() {
		if c.Change != adaptation.PluginJoined {
			t.Errorf("change %+v: no plugin should have left", c)
		}
	}
}
