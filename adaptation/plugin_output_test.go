// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// A pre-installed plugin that panics in CreateContainer: its panic message,
// its stack and its own lines are in its PluginLeft change and in the
// runtime's log, named by plugin and stream.
func TestPanickingPluginOutputReportedAndLogged(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add))
	e.preinstall("20", "panics", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Panic: "boom in create"}}})
	e.start()
	e.waitPlugins("20-panics")

	pod := testPod("pp")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("pp-c1", pod)})
	must(t, err)
	changes.waitFor(t, "20-panics", 2)

	left := changes.all()[len(changes.all())-1]
	if left.Change != adaptation.PluginLeft || !strings.Contains(left.Reason, "exit status 2") {
		t.Fatalf("last change %+v, want left with exit status 2", left)
	}
	out := outputTexts(left.Output)
	for _, want := range []string{
		"stdout: 20-panics: about to panic in CreateContainer",
		"stderr: 20-panics: giving up in CreateContainer",
		"stderr: panic: boom in create",
		"stderr: goroutine ",
		"internal/testplugin.",
	} {
		if !containsFragment(out, want) {
			t.Errorf("change's output has no line with %q:\n%s", want, strings.Join(out, "\n"))
		}
	}

	e.waitLoggedLine("panic: boom in create", logrus.Fields{"plugin": "20-panics", "stream": "stderr"})
	e.waitLoggedLine("20-panics: about to panic in CreateContainer", logrus.Fields{"plugin": "20-panics", "stream": "stdout"})
}

// With PluginOutputDiscard the output goes nowhere, as with the reference.
func TestPluginOutputDiscarded(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithPluginOutput(adaptation.PluginOutputDiscard))
	e.preinstall("20", "panics", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Panic: "boom in create"}}})
	e.start()
	e.waitPlugins("20-panics")
	pod := testPod("pd")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("pd-c1", pod)})
	must(t, err)
	changes.waitFor(t, "20-panics", 2)
	if left := changes.all()[len(changes.all())-1]; len(left.Output) != 0 {
		t.Errorf("output kept with PluginOutputDiscard: %q", outputTexts(left.Output))
	}
	if n := len(e.logged(logrus.Fields{"stream": "stderr"})); n != 0 {
		t.Errorf("%d plugin output lines logged with PluginOutputDiscard", n)
	}
}

// A plugin that writes 64 MiB before it registers: it registers (its pipes
// were drained), the runtime's heap does not grow with what it wrote, the
// log gets at most the rate's lines and counts the rest, and the runtime
// serves the plugin's events.
func TestFloodingPluginOutputBounded(t *testing.T) {
	const flood = 64 << 20
	e := newEnv(t, adaptation.WithRegistrationTimeout(waitLimit))
	e.preinstall("10", "floods", testplugin.Config{OutputFlood: flood})
	before := heapAlloc()
	e.start()
	e.waitPlugins("10-floods")
	if grown := int64(heapAlloc()) - int64(before); grown > 16<<20 {
		t.Errorf("heap grew by %d MiB while the plugin wrote %d MiB", grown>>20, flood>>20)
	}

	pod := testPod("pf")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}))
	_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("pf-c1", pod)})
	must(t, err)
	if got := e.events("floods"); !slices.Contains(got, "CreateContainer") {
		t.Errorf("flooding plugin saw %v, want CreateContainer among them", got)
	}
	e.stop()

	logged, suppressed := 0, 0
	for _, en := range e.logged(logrus.Fields{"plugin": "10-floods"}) {
		if en.Data["stream"] != nil {
			logged++
		}
		if n, ok := en.Data["suppressed"].(int); ok {
			suppressed += n
		}
	}
	if logged == 0 || logged > 2*adaptation.OutputLogBurst {
		t.Errorf("%d output lines logged, want 1 to %d", logged, 2*adaptation.OutputLogBurst)
	}
	if lines := flood / 33; suppressed < lines-logged {
		t.Errorf("%d lines counted as dropped from the log, want at least %d", suppressed, lines-logged)
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func outputTexts(lines []adaptation.OutputLine) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Stream+": "+l.Text)
	}
	return out
}

func containsFragment(lines []string, fragment string) bool {
	for _, l := range lines {
		if strings.Contains(l, fragment) {
			return true
		}
	}
	return false
}
