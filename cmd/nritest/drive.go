// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// The simulated workload: one pod with two containers.
const (
	podID, podName, podNamespace = "pod-1", "demo", "default"
)

// containerNames are the names of the pod's containers, in creation order.
var containerNames = []string{"app", "sidecar"}

// Step results.
const (
	resultOK      = "ok"
	resultFailed  = "FAILED"
	resultSkipped = "skipped"
)

// step is one runtime call of the scripted lifecycle.
type step struct {
	event  api.Event
	target string // "pod" or the container's name
	id     string // the pod's or the container's ID
	// run makes the call and describes what the plugins changed.
	run func(ctx context.Context) (changes []Change, err error)
}

// driver plays the runtime: it makes the lifecycle calls on the adaptation
// and keeps its store (what late plugins get in Synchronize) up to date.
type driver struct {
	a      *adaptation.Adaptation
	st     *store
	owners bool // read who changed what from container records
	pause  func(context.Context)
	settle func(context.Context) // after each step (the observers' deliveries)
	pod    *api.PodSandbox
	ctrs   []*api.Container
}

func newDriver(a *adaptation.Adaptation, st *store, meta workloadMeta) *driver {
	pod := &api.PodSandbox{
		Id: podID, Name: podName, Namespace: podNamespace, Uid: "uid-" + podID,
		Labels:      meta.podLabels.apply(map[string]string{"app": "demo"}, ""),
		Annotations: meta.podAnnotations.apply(nil, ""),
		Linux:       &api.LinuxPodSandbox{CgroupParent: "/kubepods/pod-1"},
		State:       api.PodSandboxState_POD_SANDBOX_READY,
	}
	ctrs := []*api.Container{
		newContainer("ctr-1", containerNames[0], 256<<20),
		newContainer("ctr-2", containerNames[1], 64<<20),
	}
	for _, c := range ctrs {
		c.Labels = meta.ctrLabels.apply(nil, c.Name)
		c.Annotations = meta.ctrAnnotations.apply(nil, c.Name)
	}
	return &driver{a: a, st: st, pod: pod, ctrs: ctrs, settle: func(context.Context) {}}
}

func newContainer(id, name string, memory int64) *api.Container {
	return &api.Container{
		Id: id, PodSandboxId: podID, Name: name,
		Args: []string{"/bin/" + name},
		Env:  []string{"PATH=/usr/bin:/bin"},
		Linux: &api.LinuxContainer{Resources: &api.LinuxResources{
			Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: memory}},
		}},
	}
}

// metadata lists the labels and annotations of the pod and its containers.
func (d *driver) metadata() []string {
	out := metaLines("pod", d.pod.Labels, d.pod.Annotations)
	for _, c := range d.ctrs {
		out = append(out, metaLines(c.Name, c.Labels, c.Annotations)...)
	}
	return out
}

// workload describes the pod and its containers.
func (d *driver) workload() string {
	s := fmt.Sprintf("pod %s/%s (%s) with containers", d.pod.Namespace, d.pod.Name, d.pod.Id)
	for i, c := range d.ctrs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %s (%s)", c.Name, c.Id)
	}
	return s
}

// script is the whole lifecycle, in the order a runtime issues it.
func (d *driver) script() []step {
	s := []step{d.runPod()}
	for _, c := range d.ctrs {
		s = append(s, d.create(c), d.postCreate(c), d.start(c), d.postStart(c))
	}
	s = append(s, d.update(d.ctrs[0]), d.postUpdate(d.ctrs[0]), d.updatePod(), d.postUpdatePod())
	for _, c := range d.ctrs {
		s = append(s, d.stop(c), d.remove(c))
	}
	return append(s, d.stopPod(), d.removePod())
}

// drive runs the script and records every step, calling pause (if set) once
// before the teardown begins. After a setup event of an
// object failed, the object's later setup and notification events are
// skipped, as a runtime would, but it is still torn down. A container whose
// creation was never attempted is not torn down either.
func (d *driver) drive(ctx context.Context, rec *recorder) []EventReport {
	failed := map[string]string{} // object ID: the event it failed
	tried := map[string]bool{}    // object IDs with a step that ran
	var out []EventReport
	paused := false
	for i, s := range d.script() {
		if !paused && isTeardown(s.event) && d.pause != nil {
			d.pause(ctx) // everything runs: plugins may act on their own now
			paused = true
			if ctx.Err() != nil {
				// Ctrl-C ended the pause: the run still ends cleanly, and the
				// teardown is bounded by the request timeout anyway.
				ctx = context.WithoutCancel(ctx)
			}
		}
		r := EventReport{Seq: i + 1, Event: s.event.Name(), Target: s.target, TargetID: s.id, Calls: []Call{}}
		switch {
		case ctx.Err() != nil:
			r.Result, r.Skipped = resultSkipped, "interrupted"
		case failed[podID] != "" && s.id != podID && !isTeardown(s.event):
			r.Result, r.Skipped = resultSkipped, "the pod's "+failed[podID]+" failed"
		case failed[s.id] != "" && !isTeardown(s.event):
			r.Result, r.Skipped = resultSkipped, "its "+failed[s.id]+" failed"
		case isTeardown(s.event) && !tried[s.id]:
			r.Result, r.Skipped = resultSkipped, "never created"
		default:
			tried[s.id] = true
			step := fmt.Sprintf("#%d %s %s", r.Seq, r.Event, r.Target)
			d.st.setPhase(step)
			rec.begin(s.event)
			changes, err := s.run(ctx)
			d.settle(ctx)
			r.Calls, r.Changes, r.Result = rec.end(), changes, resultOK
			d.st.setPhase("after " + step)
			if err != nil {
				r.Result, r.Error = resultFailed, err.Error()
				failed[s.id] = s.event.Name()
			}
		}
		out = append(out, r)
	}
	return out
}

func isTeardown(ev api.Event) bool {
	switch ev {
	case api.Event_STOP_POD_SANDBOX, api.Event_REMOVE_POD_SANDBOX,
		api.Event_STOP_CONTAINER, api.Event_REMOVE_CONTAINER:
		return true
	}
	return false
}

func (d *driver) podStep(ev api.Event, run func(context.Context) ([]Change, error)) step {
	return step{event: ev, target: "pod", id: d.pod.Id, run: run}
}

func (d *driver) ctrStep(ev api.Event, c *api.Container, run func(context.Context) ([]Change, error)) step {
	return step{event: ev, target: c.Name, id: c.Id, run: run}
}

// nothing adapts an event that returns nothing to report.
func nothing(err error) ([]Change, error) { return nil, err }

// podCopy is the pod for a request: the adaptation may keep requests.
func (d *driver) podCopy() *api.PodSandbox { return proto.Clone(d.pod).(*api.PodSandbox) }

// set moves c to state and returns a copy for a request.
func (d *driver) set(c *api.Container, state api.ContainerState) *api.Container {
	c.State = state
	return proto.Clone(c).(*api.Container)
}

func (d *driver) runPod() step {
	return d.podStep(api.Event_RUN_POD_SANDBOX, func(ctx context.Context) ([]Change, error) {
		// Listed as being created while plugins hear of it, as a runtime may list it.
		creating := proto.Clone(d.pod).(*api.PodSandbox)
		creating.State = api.PodSandboxState_POD_SANDBOX_UNKNOWN
		// First, as a runtime does, the readiness gate (at once when it is
		// off or the pod's plugins are there).
		if err := d.a.AwaitPlugins(ctx, d.podCopy()); err != nil {
			return nil, fmt.Errorf("AwaitPlugins held the pod and failed it, before RunPodSandbox: %w", err)
		}
		d.st.putPod(creating)
		err := d.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: d.podCopy()})
		if err == nil {
			d.st.putPod(d.pod)
		}
		return nil, err
	})
}

func (d *driver) create(c *api.Container) step {
	return d.ctrStep(api.Event_CREATE_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		d.st.putContainer(d.set(c, api.ContainerState_CONTAINER_UNKNOWN))
		since := time.Now()
		rsp, err := d.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: d.podCopy(), Container: d.set(c, api.ContainerState_CONTAINER_CREATED)})
		if err != nil {
			d.st.removeContainer(c.Id)
			return nil, err
		}
		d.st.putContainer(c)
		var owners *api.OwningPlugins
		if d.owners {
			owners = recordedOwners(d.a, c.Id, rsp, since)
		}
		return createChanges(c.Id, rsp, owners), nil
	})
}

// updateOwners is the package's updateOwners when nritest keeps records
// (not --no-owners), nil otherwise.
func (d *driver) updateOwners(updates []*api.ContainerUpdate, source string, since time.Time) *api.OwningPlugins {
	if !d.owners {
		return nil
	}
	return updateOwners(d.a, updates, source, since)
}

func (d *driver) postCreate(c *api.Container) step {
	return d.ctrStep(api.Event_POST_CREATE_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		return nothing(d.a.PostCreateContainer(ctx, &api.PostCreateContainerRequest{Pod: d.podCopy(), Container: d.set(c, api.ContainerState_CONTAINER_CREATED)}))
	})
}

func (d *driver) start(c *api.Container) step {
	return d.ctrStep(api.Event_START_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		return nothing(d.a.StartContainer(ctx, &api.StartContainerRequest{Pod: d.podCopy(), Container: d.set(c, api.ContainerState_CONTAINER_CREATED)}))
	})
}

func (d *driver) postStart(c *api.Container) step {
	return d.ctrStep(api.Event_POST_START_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		ctr := d.set(c, api.ContainerState_CONTAINER_RUNNING)
		d.st.putContainer(ctr)
		return nothing(d.a.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: d.podCopy(), Container: ctr}))
	})
}

// update doubles the container's memory limit.
func (d *driver) update(c *api.Container) step {
	return d.ctrStep(api.Event_UPDATE_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		res := proto.Clone(c.GetLinux().GetResources()).(*api.LinuxResources)
		res.Memory.Limit.Value *= 2
		asked := proto.Clone(res).(*api.LinuxResources) // the adaptation merges into res
		since := time.Now()
		rsp, err := d.a.UpdateContainer(ctx, &api.UpdateContainerRequest{Pod: d.podCopy(), Container: d.set(c, c.State), LinuxResources: res})
		if err != nil {
			return nil, err
		}
		return updateChanges(c.Id, asked, rsp, d.updateOwners(rsp.GetUpdate(), adaptation.UpdateByReply, since)), nil
	})
}

func (d *driver) postUpdate(c *api.Container) step {
	return d.ctrStep(api.Event_POST_UPDATE_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		return nothing(d.a.PostUpdateContainer(ctx, &api.PostUpdateContainerRequest{Pod: d.podCopy(), Container: d.set(c, c.State)}))
	})
}

func (d *driver) updatePod() step {
	return d.podStep(api.Event_UPDATE_POD_SANDBOX, func(ctx context.Context) ([]Change, error) {
		res := &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 2048}}}
		_, err := d.a.UpdatePodSandbox(ctx, &api.UpdatePodSandboxRequest{Pod: d.podCopy(), LinuxResources: res})
		return nil, err
	})
}

func (d *driver) postUpdatePod() step {
	return d.podStep(api.Event_POST_UPDATE_POD_SANDBOX, func(ctx context.Context) ([]Change, error) {
		return nothing(d.a.PostUpdatePodSandbox(ctx, &api.PostUpdatePodSandboxRequest{Pod: d.podCopy()}))
	})
}

func (d *driver) stop(c *api.Container) step {
	return d.ctrStep(api.Event_STOP_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		ctr := d.set(c, api.ContainerState_CONTAINER_STOPPED)
		d.st.putContainer(ctr)
		since := time.Now()
		rsp, err := d.a.StopContainer(ctx, &api.StopContainerRequest{Pod: d.podCopy(), Container: ctr})
		return stopChanges(rsp, d.updateOwners(rsp.GetUpdate(), adaptation.UpdateByStop, since)), err
	})
}

func (d *driver) remove(c *api.Container) step {
	return d.ctrStep(api.Event_REMOVE_CONTAINER, c, func(ctx context.Context) ([]Change, error) {
		d.st.removeContainer(c.Id)
		return nothing(d.a.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: d.podCopy(), Container: d.set(c, c.State)}))
	})
}

func (d *driver) stopPod() step {
	return d.podStep(api.Event_STOP_POD_SANDBOX, func(ctx context.Context) ([]Change, error) {
		d.pod.State = api.PodSandboxState_POD_SANDBOX_NOT_READY
		d.st.putPod(d.pod)
		return nothing(d.a.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: d.podCopy()}))
	})
}

func (d *driver) removePod() step {
	return d.podStep(api.Event_REMOVE_POD_SANDBOX, func(ctx context.Context) ([]Change, error) {
		d.st.removePod(d.pod.Id)
		return nothing(d.a.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: d.podCopy()}))
	})
}
