// Package adaptation is the runtime side of NRI: the package a container
// runtime links in so that NRI plugins can watch and adjust its pods and
// containers.
//
// A runtime creates one Adaptation with New, calls Start once its own state
// can be listed, calls one method per lifecycle event (RunPodSandbox,
// CreateContainer, …) and Stop on shutdown. Each event is fanned out to the
// subscribed plugins one at a time, in ascending index order, with a timeout
// per plugin; what the event class allows a plugin to do when it fails is a
// table: setup events can fail, teardown and notification events never
// block (see the README's failure policy table).
package adaptation
