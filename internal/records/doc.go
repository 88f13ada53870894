// SPDX-License-Identifier: Apache-2.0

// Package records keeps, for the newest live containers, who changed them:
// which plugin set or removed which field at the creation, which
// validators approved it, and the updates plugins made since ([Store]).
//
// What it owns: the records, in slots allocated at [New] and linked by
// index (the live ones from the oldest to the newest, the free ones apart),
// so that recording a creation costs no allocation of its own; at the cap
// a new record evicts the oldest live one. A record keeps the merger's
// owner tables as they are and names its validators by ID, so that it pins
// no plugin instance; it becomes a [Record] only when asked for. A record
// keeps its last 32 updates.
//
// What it needs: internal/merge's owner tables (ContainerOwners, and
// UpdateOwners to name the fields of an unsolicited update) and api's
// containers and fields; it calls no other component. The relay's event
// path (internal/relay) records each creation (Created, with the approving
// validators' IDs through a func, so that no slice is built for it), the
// updates that replies merged (UpdatesMerged), plugins' unsolicited
// updates (Unsolicited) and removals (Removed); ContainerRecord and Status
// read it (Get, Len) and convert to the public types field by field.
package records
