// SPDX-License-Identifier: Apache-2.0

// Package accept holds what the runtime needs to take external plugin
// connections without trusting them: a listener that serves one connection
// already open, the connecting process's pid where the OS tells it, and the
// count of connections registering at once, in all and per process.
package accept
