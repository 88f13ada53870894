// SPDX-License-Identifier: Apache-2.0

// Package status keeps what nrikit's Status reports that is counted as it
// goes: each plugin instance's call counters and latency histograms
// ([Counters]), the last plugin changes, with the refused connections
// kept apart ([RecentChanges]), and the handshakes in progress ([Joining]).
//
// It owns that state and hands out snapshots in its own forms; it needs
// nothing of the rest of nrikit but the shared values of internal/nri and
// the event names of api. The dispatch path counts each call (without
// allocating); package adaptation reads the snapshots when the runtime asks
// for Status and converts them, field by field, to its public types. The
// change feed adds each change it reports to the runtime, as an nri.Change;
// the handshake begins, moves and ends a plugin's [Handshake].
package status
