// SPDX-License-Identifier: Apache-2.0

// Package filter is the operator's choice of the pods a plugin takes part
// in: a [Selector] made from a [Spec] (the plugin_settings filter table)
// that tells, from a pod's namespace, labels, annotations and runtime
// handler, whether the pod is in the plugin's scope.
//
// What it owns: the parsed form of a filter, checked once, when the
// runtime's configuration is read ([New]): namespace and annotation key
// globs ([Glob]), runtime handler names, and label requirements. Every
// error names the key and the entry at fault, so that the runtime's New
// can say which line of its configuration to fix.
//
// What it needs: nothing but the pod. It keeps no state per pod: the
// decision for a (plugin, pod) pair is made once and kept with the pod's
// record by internal/lifecycle, since CRI fixes a sandbox's namespace,
// labels, annotations and runtime handler for its whole life. A nil
// *Selector takes every pod.
package filter
