// SPDX-License-Identifier: Apache-2.0

// Package admission decides who may join now: it owns the places of the
// connections registering at once, in all and per process ([Admission]),
// the slots of the refused connections being answered ([Refusals]), the
// back-off of plugins that timed out synchronizing ([SyncBackoff]), and the
// limits of the log lines about connections refused or failed before
// joining ([LogLimits]).
//
// It needs its bounds and the error a refusal wraps ([Bounds]); the caller
// (adaptation's accept loop) keeps them public, and answers a refused
// connection itself while it holds a slot.
package admission
