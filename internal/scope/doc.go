// SPDX-License-Identifier: Apache-2.0

// Package scope decides whether a plugin's reply changes only what the
// operator allows it to (plugin_settings."NN-name".allow): the classes of
// fields of a container adjustment (annotations, env, mounts, ...), the
// updates of containers, and evictions.
//
// What it owns: the class names an operator writes, checked once when the
// runtime's options are read ([Parse]), so that checking a reply cannot
// fail for a bad name; the set of classes a reply touches ([Adjustment],
// [Create], [Update], [Stop], [ContainerUpdates]); and the error that
// names the classes outside a plugin's scope ([Check], [ErrOutOfScope]).
//
// What it needs: nothing but the wire types. The relay keeps each
// plugin's Set (the operator's, looked up at its registration) and checks
// each reply before it is merged; a plugin without a scope allows [All],
// which the relay tests for first, so that an unset scope costs one
// comparison per reply.
package scope
