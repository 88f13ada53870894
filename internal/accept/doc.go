// SPDX-License-Identifier: Apache-2.0

// Package accept holds what the runtime needs to take external plugin
// connections without trusting them: listening on a unix socket path
// without removing anything there but a stale socket (Listen), the group an
// operator grants access to it (Group), and directories on the way its
// members can search, a listener that serves one
// connection already open, and the connecting process's pid where the OS
// tells it. Which connections may stay while they register is
// internal/admission's.
package accept
