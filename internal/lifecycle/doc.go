// SPDX-License-Identifier: Apache-2.0

// Package lifecycle keeps what each plugin was told of each pod and
// container, so that every plugin hears the lifecycle contract: of a pod
// (container) once as created, then at most one stop and one remove, in that
// order, and nothing after the remove; of a container only within its pod's
// life as the plugin saw it. Its [Store] owns the per-object records of
// that contract, the tombstones of removed objects, the records the
// runtime's lists showed gone, the pods owed to plugins whose snapshot left
// them out, the clock that reconciles a joining plugin's snapshot with
// the events relayed while the runtime listed its state, and, for plugins
// given a scope of pods ([Scopes]), whether each pod is in it. Its memory is
// bounded by what the runtime has: removed objects leave a fixed number of
// tombstones, and when the records outgrow the last listing the store asks
// for a new one ([Store.Overgrown]).
//
// It needs its caller to relay the runtime's events through it: to tell it
// each fan-out's start ([Store.Begin]) and end ([Store.PodRan],
// [Store.ContainerCreated], [Store.PodStopped], [Store.PodRemoved] …), to
// ask it before each plugin's turn ([Store.PayOwed], [Store.Admit]), to
// hand it the runtime's lists ([Store.Reconcile], [Store.SweepListed]) and
// to tell the plugins what it returns ([Store.Synced]). The caller's own
// identity of a plugin is the type parameter P; the store never calls a
// plugin, never lists the runtime's state and takes no lock of its caller's.
package lifecycle
