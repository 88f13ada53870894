// SPDX-License-Identifier: Apache-2.0

package readiness

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// After the fan-out, a required plugin that is active, takes RunPodSandbox
// and did not take part in it is named; one that took part, or does not
// take the event, passes.
func TestTheSandboxCheckNamesSilentRequiredPlugins(t *testing.T) {
	f := newFixture(t, time.Minute, requiring(gateName, "other", "quiet"))
	f.Starting()
	f.join(gateID)
	f.join("20-other")
	f.plugins.set(Plugin{ID: "30-quiet"}) // takes no RunPodSandbox
	f.Joined("30-quiet")
	g := f.SandboxGate(testPod("p"))
	g.TookPart("20-other")
	err := g.Check()
	const want = `nrikit: required plugins not ready: pod default/p (missing during RunPodSandbox, or did not answer it): ` +
		`"gate" (10-gate) did not answer RunPodSandbox (timed out, or the event's deadline left it no time)`
	if err == nil || err.Error() != want || !errors.Is(err, ErrPluginsNotReady) {
		t.Errorf("Check: %v, want %q", err, want)
	}
	g = f.SandboxGate(testPod("p2"))
	g.TookPart(gateID)
	g.TookPart("20-other")
	if err := g.Check(); err != nil {
		t.Errorf("Check with every plugin taking part: %v", err)
	}
}

// A required plugin lost during the fan-out is named with its story.
func TestTheSandboxCheckNamesLostRequiredPlugins(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.Starting()
	f.join(gateID)
	g := f.SandboxGate(testPod("p"))
	g.TookPart(gateID)
	f.leave(gateID, "connection lost")
	err := g.Check()
	if !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), `"gate" (10-gate) left at `) {
		t.Errorf("Check: %v, want ErrPluginsNotReady saying gate left", err)
	}
}

// Under Proceed the pod goes on with a warning and is counted; a required
// plugin's failure does not raise its policy.
func TestTheSandboxCheckProceedsAndCounts(t *testing.T) {
	f := newFixture(t, time.Minute, func(c *Config) { c.Proceed = true })
	f.Starting()
	f.join(gateID)
	g := f.SandboxGate(testPod("p"))
	if g.RequiredForSandbox(gateID) || !g.Requires(gateID) {
		t.Error("under Proceed, the required plugin's failure fails the sandbox")
	}
	if err := g.Check(); err != nil {
		t.Fatalf("Check under Proceed: %v", err)
	}
	if n := f.State().Proceeded; n != 1 {
		t.Errorf("State().Proceeded = %d, want 1", n)
	}
	w := f.warnings()
	if len(w) != 1 || w[0].Message != "nrikit: pod created without its required plugins (plugin_readiness.on_timeout = proceed)" ||
		!strings.Contains(w[0].Data["missing"].(string), "did not answer RunPodSandbox") {
		t.Errorf("warnings %+v, want one saying the pod was created without gate", w)
	}
}

// Under Fail a required plugin's failure fails the sandbox, whatever its
// own policy; others keep theirs.
func TestRequiredForSandbox(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.Starting()
	g := f.SandboxGate(testPod("p"))
	if !g.RequiredForSandbox(gateID) || !g.RequiredForSandbox(gateName) || g.RequiredForSandbox("20-other") {
		t.Error("RequiredForSandbox: want gate alone")
	}
	pod := testPod("annotated")
	pod.Annotations = map[string]string{requiredAnnotated: "[other]"}
	if g := f.SandboxGate(pod); !g.RequiredForSandbox("20-other") {
		t.Error("RequiredForSandbox: want the annotated plugin too")
	}
}

// A pod whose annotation cannot be read requires every plugin, and fails
// after the fan-out.
func TestTheSandboxGateOfAnUnreadableAnnotation(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.Starting()
	pod := testPod("p")
	pod.Annotations = map[string]string{requiredAnnotated: "{"}
	g := f.SandboxGate(pod)
	if !g.Requires("20-anyone") {
		t.Error("a pod whose annotation cannot be read does not require every plugin")
	}
	if err := g.Check(); !errors.Is(err, ErrPluginsNotReady) || !strings.Contains(err.Error(), "pod default/p: ") {
		t.Errorf("Check: %v, want ErrPluginsNotReady", err)
	}
}

// With the gate off, or for a pod that requires nothing, there is no gate
// and none is allocated; a nil gate does nothing.
func TestNoSandboxGateWithoutAllocating(t *testing.T) {
	exempt := testPod("sys")
	exempt.Namespace = exemptNamespace
	for name, f := range map[string]*fixture{"off": newFixture(t, 0), "exempt": newFixture(t, time.Minute)} {
		pod := testPod("p")
		if name == "exempt" {
			pod = exempt
		}
		var g *Gate
		if n := testing.AllocsPerRun(100, func() { g = f.SandboxGate(pod) }); n != 0 || g != nil {
			t.Errorf("%s: SandboxGate allocates %v times, gate %v, want none", name, n, g)
		}
		g.TookPart(gateID)
		if g.Requires(gateID) || g.RequiredForSandbox(gateID) || g.Check() != nil {
			t.Errorf("%s: a nil gate requires or fails", name)
		}
	}
}
