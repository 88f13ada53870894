// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestUnsolicitedUpdates: a plugin's own updates are recorded and shown,
// those of a container the runtime does not have fail, and --linger keeps
// the runtime up for the late ones until the run is interrupted. The
// plugin also sees the annotations and labels of the command line.
func TestUnsolicitedUpdates(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(shortTempDir(t), "nri.sock")
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	waiting := stderr.watch("nritest: waiting")
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	finished := make(chan result, 1)
	go func() {
		finished <- runCtx(ctx, stderr, "--json", "--no-samples", "--socket", sock, "--wait", "1", "--linger", "1h",
			"--pod-annotation", "balancer.example.com/pod=on", "--pod-label", "tier=web",
			"--container-annotation", "app:balancer.example.com/cpus=2", "--container-label", "team=blue")
	}()
	select {
	case <-waiting:
	case r := <-finished:
		t.Fatalf("run ended before waiting: exit %d\n%s", r.code, r.stderr)
	}

	// While the app's PostStartContainer is in progress: one update of the
	// app, accepted, and one of a container that does not exist.
	inStep := make(chan []string, 1)
	balancer := connectSpy(t, sock, testplugin.Config{Index: "50", Name: "balancer", Events: "createcontainer,poststartcontainer"},
		func(ctx context.Context, s *spy, req *api.PostStartContainerRequest) {
			if req.GetContainer().GetName() != "app" {
				return
			}
			failed, err := s.update(ctx,
				resourceUpdate(req.GetContainer().GetId(), &api.LinuxResources{
					Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 512 << 20}},
					Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}},
				}),
				&api.ContainerUpdate{ContainerId: "ctr-x", IgnoreFailure: true, Linux: &api.LinuxContainerUpdate{
					Resources: &api.LinuxResources{Pids: &api.LinuxPids{Limit: 10}},
				}})
			if err != nil {
				t.Errorf("UpdateContainers in PostStartContainer: %v", err)
			}
			inStep <- failed
		})

	lingering := stderr.watch("nritest: lingering for 1h0m0s")
	select {
	case <-lingering:
	case r := <-finished:
		t.Fatalf("run ended without lingering: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if failed := <-inStep; !slices.Equal(failed, []string{"ctr-x"}) {
		t.Errorf("failed in PostStartContainer = %v, want [ctr-x]", failed)
	}
	// While lingering, before the teardown: the app still runs.
	failed, err := balancer.update(ctx, resourceUpdate("ctr-1", &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 1024}}}))
	if err != nil || len(failed) != 0 {
		t.Errorf("failed while lingering = %v, %v; want none", failed, err)
	}
	cancel() // Ctrl-C ends the linger; the teardown still runs
	r := <-finished
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	for i, e := range jsonRows(rep) {
		var want []string
		if e.event == "CreateContainer" || e.event == "PostStartContainer" {
			want = []string{"50-balancer"}
		}
		if e.event != lifecycle[i].event || e.result != resultOK || !slices.Equal(e.plugins, want) {
			t.Errorf("event %d = %+v, want %s ok %v", i+1, e, lifecycle[i].event, want)
		}
	}

	want := []UnsolicitedUpdate{
		{During: "#5 PostStartContainer app", ContainerID: "ctr-1", Container: "app", Changes: []string{"memory.limit=512Mi", "cpu.shares=512"}, Result: updateAccepted},
		{During: "#5 PostStartContainer app", ContainerID: "ctr-x", Changes: []string{"pids.limit=10"}, IgnoreFailure: true, Result: updateFailed, Reason: "no such container"},
		{During: phaseLinger, ContainerID: "ctr-1", Container: "app", Changes: []string{"cpu.shares=1024"}, Result: updateAccepted},
	}
	if !slices.EqualFunc(rep.Unsolicited, want, sameUpdate) {
		t.Errorf("unsolicited updates:\n%+v\nwant\n%+v", rep.Unsolicited, want)
	}
	if rep.Linger != "1h0m0s (interrupted)" || !rep.OK {
		t.Errorf("linger %q, ok %v", rep.Linger, rep.OK)
	}
	if p := rep.Active[0]; p.Plugin != "50-balancer" || !slices.Equal(p.Events, []string{"CreateContainer", "PostStartContainer"}) {
		t.Errorf("plugin %+v", p)
	}

	// What the plugin saw, and what the report says it saw.
	created := balancer.creates()
	if len(created) != 2 {
		t.Fatalf("%d CreateContainer requests, want 2", len(created))
	}
	for _, req := range created {
		pod, ctr := req.GetPod(), req.GetContainer()
		wantAnn := map[string]string{}
		if ctr.GetName() == "app" {
			wantAnn["balancer.example.com/cpus"] = "2"
		}
		if !maps.Equal(pod.GetAnnotations(), map[string]string{"balancer.example.com/pod": "on"}) ||
			!maps.Equal(pod.GetLabels(), map[string]string{"app": "demo", "tier": "web"}) ||
			!maps.Equal(ctr.GetAnnotations(), wantAnn) ||
			!maps.Equal(ctr.GetLabels(), map[string]string{"team": "blue"}) {
			t.Errorf("%s: pod annotations %v, labels %v; container annotations %v, labels %v",
				ctr.GetName(), pod.GetAnnotations(), pod.GetLabels(), ctr.GetAnnotations(), ctr.GetLabels())
		}
	}
	wantMeta := []string{
		"pod labels: app=demo, tier=web", "pod annotations: balancer.example.com/pod=on",
		"app labels: team=blue", "app annotations: balancer.example.com/cpus=2", "sidecar labels: team=blue",
	}
	if !slices.Equal(rep.Metadata, wantMeta) {
		t.Errorf("workload metadata = %q, want %q", rep.Metadata, wantMeta)
	}

	// The text report of the same run.
	var text bytes.Buffer
	if err := rep.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nUNSOLICITED UPDATES (",
		"#5 PostStartContainer app  ctr-1 (app)  accepted                   memory.limit=512Mi, cpu.shares=512\n",
		"#5 PostStartContainer app  ctr-x        FAILED: no such container  pids.limit=10 (ignore_failure)\n",
		"linger                     ctr-1 (app)  accepted                   cpu.shares=1024\n",
		"unsolicited updates: 3 (1 failed)",
		"  linger:    1h0m0s (interrupted) while the containers run, before the teardown\n",
		"             app annotations: balancer.example.com/cpus=2\n",
		"CreateContainer, PostStartContainer",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestLinger: the run stays up for --linger, then ends on its own.
func TestLinger(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--json", "--no-samples", "--no-owners", "--linger", "1ms")
	if r.code != exitOK || !strings.Contains(r.stderr, "nritest: lingering for 1ms") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if rep := parseJSON(t, r.stdout); rep.Linger != "1ms" || len(rep.Unsolicited) != 0 {
		t.Errorf("linger %q, unsolicited %+v", rep.Linger, rep.Unsolicited)
	}
	// No linger, no word of it.
	r = runCmd(t, "--no-samples", "--no-owners")
	if r.code != exitOK || strings.Contains(r.stderr, "linger") || strings.Contains(r.stdout, "linger") || strings.Contains(r.stdout, "UNSOLICITED") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestLingerTimer: linger ends when its time is up or when the run is
// interrupted, whichever comes first.
func TestLingerTimer(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if !linger(context.Background(), time.Nanosecond, &out) {
		t.Error("a linger that ran its course says it was interrupted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if linger(ctx, time.Hour, &out) {
		t.Error("a linger of an interrupted run says it ran its course")
	}
	if !linger(ctx, 0, &out) {
		t.Error("no linger says it was interrupted")
	}
}

// sameUpdate compares two updates field by field.
func sameUpdate(a, b UnsolicitedUpdate) bool {
	return a.During == b.During && a.ContainerID == b.ContainerID && a.Container == b.Container &&
		slices.Equal(a.Changes, b.Changes) && a.IgnoreFailure == b.IgnoreFailure && a.Result == b.Result && a.Reason == b.Reason
}
