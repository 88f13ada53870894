// SPDX-License-Identifier: Apache-2.0

// Package identity decides whether the process at the other end of a
// plugin connection may hold a plugin's name: the operator binds a name to
// peers ([Rules]: uids, gids, executables, pods), and a connection that
// claims the name from a peer that matches them is admitted
// ([Rules.Match]); any other is refused, with why.
//
// What it owns: the rules' form, checked once when the runtime's options
// are read ([Rules.Validate]: globs, bounds) so that matching cannot fail
// on the event of a registration; matching a [Peer] against them; and
// what this OS leaves unknown, for the warning that a name bound to it
// cannot be claimed ([Rules.Unmatchable]).
//
// What it needs: the kernel's word on the peer (internal/accept's Peer:
// pid, uid, gid and executable when it connected), and, for pods, the
// runtime's [Resolver], which maps a pid to the pod it runs in (containerd
// and CRI-O read it from the process's cgroup). The relay looks a name's
// rules up in the operator's per-plugin settings and consults them at each
// registration from the socket, a replacement included. Pre-installed,
// builtin and WASM plugins are the runtime's own, and are not matched.
package identity
