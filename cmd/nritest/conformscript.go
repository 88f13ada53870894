// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// The conformance script: fixed cases, each a few runtime calls, that take
// a plugin through every part of the lifecycle contract. The workload:
//
//	pod-0 "early"  ctr-0a early-app       exist before nritest starts: learned in Synchronize
//	pod-1 "demo"   ctr-1a app, ctr-1b sidecar; ctr-1x doomed, ctr-1y rejected (their creation fails)
//	pod-2 "late"   ctr-2a late-app        created after the restart

// Conformance case names.
const (
	caseJoined       = "joined-with-state"
	caseCreated      = "created-after-join"
	caseUpdates      = "updates"
	caseOtherFails   = "other-plugin-fails"
	caseRestart      = "restart"
	caseStopNoRemove = "stop-without-remove"
	caseRemoveNoStop = "remove-without-stop"
)

// caseTitles say what each case checks, in script order.
var caseTitles = []struct{ name, title string }{
	{caseJoined, "a pod and a container that exist before the plugin joins are in its Synchronize snapshot, once"},
	{caseCreated, "a pod and containers created after it joined reach it as events, each once and in order"},
	{caseUpdates, "UpdateContainer (of a created and of a synchronized container), UpdatePodSandbox and their Post events; its updates and evictions merge"},
	{caseOtherFails, "a CreateContainer failed by a later plugin, and one rejected by a validator: a plugin that saw the creation then sees the container stopped and removed, nothing else"},
	{caseRestart, "the plugin is restarted: the new instance's snapshot holds exactly the live pods and containers, and it gets later events"},
	{caseStopNoRemove, "containers stopped but never removed, a pod stopped with a container running: the pod's removal brings their stop and removal first"},
	{caseRemoveNoStop, "a container and pods removed without a stop: the stop comes first, then the removal"},
}

// Names of the containers the failer fails.
const (
	doomedName   = "doomed"
	rejectedName = "rejected"
)

// cstep is one runtime call of the conformance script.
type cstep struct {
	step
	kase string
	// expectFail: the call is scripted to fail (another plugin fails it).
	expectFail bool
	// restart: not a runtime event but the restart of the plugins.
	restart bool
}

// conformanceWorkload is the script's pods and containers.
type conformanceWorkload struct {
	pods map[string]*api.PodSandbox
	ctrs map[string]*api.Container
}

func newConformanceWorkload() *conformanceWorkload {
	w := &conformanceWorkload{pods: map[string]*api.PodSandbox{}, ctrs: map[string]*api.Container{}}
	for _, p := range []struct{ id, name string }{{"pod-0", "early"}, {"pod-1", "demo"}, {"pod-2", "late"}} {
		w.pods[p.id] = &api.PodSandbox{
			Id: p.id, Name: p.name, Namespace: podNamespace, Uid: "uid-" + p.id,
			Labels: map[string]string{"app": p.name}, // for --filter
			Linux:  &api.LinuxPodSandbox{CgroupParent: "/kubepods/" + p.id},
			State:  api.PodSandboxState_POD_SANDBOX_READY,
		}
	}
	for _, c := range []struct{ id, pod, name string }{
		{"ctr-0a", "pod-0", "early-app"}, {"ctr-1a", "pod-1", "app"}, {"ctr-1b", "pod-1", "sidecar"},
		{"ctr-1x", "pod-1", doomedName}, {"ctr-1y", "pod-1", rejectedName}, {"ctr-2a", "pod-2", "late-app"},
	} {
		ctr := newContainer(c.id, c.name, 128<<20)
		ctr.PodSandboxId = c.pod
		w.ctrs[c.id] = ctr
	}
	return w
}

// preexisting puts into the store what exists before nritest starts.
func (w *conformanceWorkload) preexisting(st *store) {
	st.putPod(w.pods["pod-0"])
	c := w.ctrs["ctr-0a"]
	c.State = api.ContainerState_CONTAINER_RUNNING
	st.putContainer(c)
}

// conformanceDriver plays the runtime for the conformance script.
type conformanceDriver struct {
	driver
	w *conformanceWorkload
	// restart restarts the plugins under test; its error is the step's.
	restart func(ctx context.Context) error
}

func newConformanceDriver(a *adaptation.Adaptation, st *store, w *conformanceWorkload) *conformanceDriver {
	return &conformanceDriver{driver: driver{a: a, st: st}, w: w}
}

// on points the driver's pod at the pod of the next steps.
func (d *conformanceDriver) on(podID string, steps ...func() step) []step {
	out := make([]step, len(steps))
	for i, s := range steps {
		d.pod = d.w.pods[podID]
		out[i] = s()
		run := out[i].run
		pod := d.w.pods[podID]
		out[i].run = func(ctx context.Context) ([]Change, error) {
			d.pod = pod // steps run later, on their own pod
			return run(ctx)
		}
		if out[i].target == "pod" {
			out[i].target = podID
		}
	}
	return out
}

// script is the whole conformance script, case by case.
func (d *conformanceDriver) script() []cstep {
	w := d.w
	c := func(id string) *api.Container { return w.ctrs[id] }
	var s []cstep
	add := func(kase string, steps ...step) {
		for _, st := range steps {
			s = append(s, cstep{step: st, kase: kase})
		}
	}
	fail := func(kase string, st step) { s = append(s, cstep{step: st, kase: kase, expectFail: true}) }
	life := func(ctr *api.Container) []func() step {
		return []func() step{
			func() step { return d.create(ctr) }, func() step { return d.postCreate(ctr) },
			func() step { return d.start(ctr) }, func() step { return d.postStart(ctr) },
		}
	}

	add(caseCreated, d.on("pod-1", d.runPod)...)
	add(caseCreated, d.on("pod-1", life(c("ctr-1a"))...)...)
	add(caseCreated, d.on("pod-1", life(c("ctr-1b"))...)...)

	add(caseUpdates, d.on("pod-1",
		func() step { return d.update(c("ctr-1a")) }, func() step { return d.postUpdate(c("ctr-1a")) })...)
	add(caseUpdates, d.on("pod-0",
		func() step { return d.update(c("ctr-0a")) }, func() step { return d.postUpdate(c("ctr-0a")) })...)
	add(caseUpdates, d.on("pod-1", d.updatePod, d.postUpdatePod)...)

	for _, id := range []string{"ctr-1x", "ctr-1y"} {
		fail(caseOtherFails, d.on("pod-1", func() step { return d.create(c(id)) })[0])
		// The runtime's undo of the failed creation: a removal without a stop.
		add(caseOtherFails, d.on("pod-1", func() step { return d.remove(c(id)) })...)
	}

	s = append(s, cstep{step: step{target: "plugins", run: func(ctx context.Context) ([]Change, error) {
		return nil, d.restart(ctx)
	}}, kase: caseRestart, restart: true})
	add(caseRestart, d.on("pod-2", d.runPod)...)
	add(caseRestart, d.on("pod-2", life(c("ctr-2a"))...)...)

	add(caseStopNoRemove, d.on("pod-1", func() step { return d.stop(c("ctr-1a")) }, d.stopPod, d.removePod)...)

	add(caseRemoveNoStop, d.on("pod-0", func() step { return d.remove(c("ctr-0a")) }, d.removePod)...)
	add(caseRemoveNoStop, d.on("pod-2", d.removePod)...)
	return s
}
