// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/testplugin"
)

var beta = testplugin.Config{Revision: testplugin.RevisionV1beta1}

// TestRevisionsSideBySide: v1beta1 plugins, external and pre-installed, in
// one run with v0.11.0 and v0.12.5 reference-stub plugins: each synchronizes
// and gets every event on its own revision's calls, in index order, and an
// instance of one revision replaces that of the other, both ways.
func TestRevisionsSideBySide(t *testing.T) {
	changes := newChangeLog()
	rec := &recorder{}
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithDeprecationRecorder(rec))
	pod := testPod("old")
	e.store.set([]*api.PodSandbox{pod}, []*api.Container{testContainer("old-c1", pod)})
	betaPre := beta
	betaPre.Annotations = map[string]string{"revision.nrikit.io/betapre": "v1beta1"}
	e.preinstall("30", "betapre", betaPre)
	e.refPreinstall("legacy", "20", "legacy")
	e.refPreinstall("modern", "40", "modern")
	e.start()
	e.external("10", "betaext", beta)
	e.waitPlugins("10-betaext", "20-legacy", "30-betapre", "40-modern")
	checkRevisions(t, e.a, map[string]string{
		"10-betaext": adaptation.RevisionV1beta1, "20-legacy": adaptation.RevisionV1alpha1,
		"30-betapre": adaptation.RevisionV1beta1, "40-modern": adaptation.RevisionV1alpha1,
	})

	for _, id := range []string{"10-betaext", "30-betapre"} {
		e.waitLoggedLine("nrikit: plugin connected", logrus.Fields{"plugin": id, "revision": adaptation.RevisionV1beta1})
	}
	created := runLifecycle(t, e.a, "p1")
	if got := created[0].GetAdjust().GetAnnotations()["revision.nrikit.io/betapre"]; got != "v1beta1" {
		t.Errorf("the v1beta1 plugin's adjustment was not returned: %v", created[0].GetAdjust().GetAnnotations())
	}
	recs := e.records()
	for _, name := range []string{"betaext", "betapre"} {
		if got := e.events(name); !slices.Equal(got, fullLifecycleEvents) {
			t.Errorf("%s got\n%v\nwant\n%v", name, got, fullLifecycleEvents)
		}
		for _, r := range testplugin.Of(recs, name) {
			if r.Via != "" {
				t.Errorf("%s got %s via %s", name, r.Event, r.Via)
			}
		}
		sync := testplugin.Find(recs, name, "Synchronize")
		if len(sync) != 1 || !slices.Equal(sync[0].Pods, []string{"old"}) || !slices.Equal(sync[0].Containers, []string{"old-c1"}) {
			t.Errorf("%s synchronized %+v", name, sync)
		}
	}
	for _, r := range e.refRecords("40-modern") {
		if r.RPC == "StateChange" {
			t.Errorf("modern got %s through StateChange", r.Event)
		}
	}
	if got := e.refEvents("20-legacy"); !slices.Equal(got, fullLifecycleEvents) {
		t.Errorf("legacy got\n%v\nwant\n%v", got, fullLifecycleEvents)
	}
	if deps := e.a.Deprecations(); len(deps) != 1 || deps[0].Plugin != "20-legacy" {
		t.Errorf("Deprecations() = %+v, want only the v0.11.0 plugin", deps)
	}

	// Replacement across revisions, both ways.
	e.external("10", "betaext", testplugin.Config{})
	changes.waitFor(t, "10-betaext", 3)
	checkRevisions(t, e.a, map[string]string{"10-betaext": adaptation.RevisionV1alpha1})
	e.external("10", "betaext", beta)
	changes.waitFor(t, "10-betaext", 5)
	checkRevisions(t, e.a, map[string]string{"10-betaext": adaptation.RevisionV1beta1})
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("p2")}))
	e.stop()

	var revs []string
	for _, c := range changes.all() {
		if c.Plugin == "10-betaext" {
			revs = append(revs, string(c.Change)+" "+c.Revision+" "+c.Reason)
		}
	}
	want := []string{
		"joined v1beta1 ", "joined v1alpha1 ", "left v1beta1 " + adaptation.ReasonReplaced,
		"joined v1beta1 ", "left v1alpha1 " + adaptation.ReasonReplaced, "left v1beta1 " + adaptation.ReasonRuntimeStopping,
	}
	if !slices.Equal(revs, want) {
		t.Errorf("10-betaext changes\n%q\nwant\n%q", revs, want)
	}
	shutdowns := testplugin.Find(e.records(), "betaext", testplugin.KeyShutdown)
	var reasons []string
	for _, r := range shutdowns {
		reasons = append(reasons, r.Reason)
	}
	if !slices.Equal(reasons, []string{adaptation.ReasonReplaced, adaptation.ReasonReplaced, adaptation.ReasonRuntimeStopping}) {
		t.Errorf("betaext instances' Shutdown reasons: %q", reasons)
	}
	if n := len(testplugin.Find(e.records(), "betapre", testplugin.KeyShutdown)); n != 1 {
		t.Errorf("betapre got %d Shutdown calls, want 1", n)
	}
	if got := testplugin.Find(e.records(), "betaext", "RunPodSandbox"); len(got) != 2 || got[1].PID != shutdowns[2].PID {
		t.Errorf("the last v1beta1 instance did not get RunPodSandbox p2: %+v", got)
	}
}

func checkRevisions(t *testing.T, a *adaptation.Adaptation, want map[string]string) {
	t.Helper()
	for _, p := range a.Plugins() {
		if rev, ok := want[p.Plugin]; ok && p.Revision != rev {
			t.Errorf("%s: revision %q, want %q", p.Plugin, p.Revision, rev)
		}
	}
}

// TestRevisionV1beta1SplitSync: a v1beta1 plugin joining a node too big for
// one message gets it split, as any plugin does.
func TestRevisionV1beta1SplitSync(t *testing.T) {
	pods, ctrs := fakenode.Node(300, 5) // several MB: more than one message
	e := newEnv(t)
	e.store.set(pods, ctrs)
	e.start()
	e.external("10", "beta", beta)
	e.waitPlugins("10-beta")
	sync := testplugin.Find(e.records(), "beta", "Synchronize")
	if len(sync) != 1 {
		t.Fatalf("v1beta1 plugin's Synchronize records: %d, want 1", len(sync))
	}
	if sync[0].Chunks < 2 || len(sync[0].Pods) != 300 || len(sync[0].Containers) != 1500 {
		t.Fatalf("v1beta1 plugin's Synchronize: chunks %d, %d pods, %d containers",
			sync[0].Chunks, len(sync[0].Pods), len(sync[0].Containers))
	}
}
