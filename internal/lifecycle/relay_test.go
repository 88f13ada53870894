// SPDX-License-Identifier: Apache-2.0

// Test helpers: one event relayed through the store as adaptation's fan-out relays it.

package lifecycle

import "github.com/nrikit/nrikit/api"

// relay runs one event through the store as a fan-out does: its start
// (Begin, refusing a removed object's setup), each plugin's turn (PayOwed
// with a send that only notes the pod, then Admit) and its end. It returns
// the names of the plugins that heard the event, an owed pod's payment
// first, as "+pod:<name>".
func relay(l *Store[*plugin], ev api.Event, req any, ps ...*plugin) []string {
	setup := ev == api.Event_RUN_POD_SANDBOX || ev == api.Event_CREATE_CONTAINER
	if l.Begin(ev, req, setup, PodID(req), ContainerID(req)) != "" {
		return nil
	}
	var heard []string
	for _, p := range ps {
		l.PayOwed(p, ev, req, func(*api.PodSandbox) { heard = append(heard, "+pod:"+p.name) })
		if l.Admit(p, ev, req) {
			heard = append(heard, p.name)
		}
	}
	relayed(l, ev, req)
	return heard
}

// relayed tells the store that ev's fan-out ended, as adaptation does.
func relayed(l *Store[*plugin], ev api.Event, req any) {
	var (
		pod *api.PodSandbox
		ctr *api.Container
	)
	if r, ok := req.(podRequest); ok {
		pod = r.GetPod()
	}
	if r, ok := req.(containerRequest); ok {
		ctr = r.GetContainer()
	}
	switch ev {
	case api.Event_RUN_POD_SANDBOX:
		l.PodRan(pod, true)
	case api.Event_STOP_POD_SANDBOX:
		l.PodStopped(pod)
	case api.Event_REMOVE_POD_SANDBOX:
		l.PodRemoved(pod)
	case api.Event_CREATE_CONTAINER:
		l.ContainerCreated(ctr, true)
	case api.Event_STOP_CONTAINER:
		l.ContainerStopped(ctr)
	case api.Event_REMOVE_CONTAINER:
		l.ContainerRemoved(ctr)
	}
}

// podEvent is the request of a pod event.
func podEvent(ev api.Event, pod *api.PodSandbox) any {
	switch ev {
	case api.Event_RUN_POD_SANDBOX:
		return &api.RunPodSandboxRequest{Pod: pod}
	case api.Event_STOP_POD_SANDBOX:
		return &api.StopPodSandboxRequest{Pod: pod}
	case api.Event_REMOVE_POD_SANDBOX:
		return &api.RemovePodSandboxRequest{Pod: pod}
	case api.Event_UPDATE_POD_SANDBOX:
		return &api.UpdatePodSandboxRequest{Pod: pod}
	}
	panic("not a pod event: " + ev.String())
}

// containerEvent is the request of a container event.
func containerEvent(ev api.Event, pod *api.PodSandbox, ctr *api.Container) any {
	switch ev {
	case api.Event_CREATE_CONTAINER:
		return &api.CreateContainerRequest{Pod: pod, Container: ctr}
	case api.Event_START_CONTAINER:
		return &api.StartContainerRequest{Pod: pod, Container: ctr}
	case api.Event_STOP_CONTAINER:
		return &api.StopContainerRequest{Pod: pod, Container: ctr}
	case api.Event_REMOVE_CONTAINER:
		return &api.RemoveContainerRequest{Pod: pod, Container: ctr}
	}
	panic("not a container event: " + ev.String())
}

// runPod creates and runs pod through the store, heard by ps.
func runPod(l *Store[*plugin], pod *api.PodSandbox, ps ...*plugin) {
	relay(l, api.Event_RUN_POD_SANDBOX, podEvent(api.Event_RUN_POD_SANDBOX, pod), ps...)
}

// createContainer creates ctr in pod through the store, heard by ps.
func createContainer(l *Store[*plugin], pod *api.PodSandbox, ctr *api.Container, ps ...*plugin) {
	relay(l, api.Event_CREATE_CONTAINER, containerEvent(api.Event_CREATE_CONTAINER, pod, ctr), ps...)
}
