// SPDX-License-Identifier: Apache-2.0

// Package api is the NRI wire protocol as Go code: the messages
// (nrikit.proto), the two ttrpc services under their reference names
// (services.proto), and helpers for events, plugin identities and the data
// model. The helpers a runtime's glue and an in-process plugin use carry the
// reference's names and shapes: optional values (String, Int64, ...),
// conversions from and to OCI spec types (FromOCIMounts,
// LinuxResources.ToOCI, ...), adjustment builders and update setters, owner
// lookups for validators, event-mask helpers, and PluginBase.
//
// Runtimes import it through the adaptation package; plugins may use it
// directly. The message types are registered under the proto package
// nrikit.api.v1, so a binary may also link the reference NRI module without a
// protobuf registration conflict.
package api

//go:generate make -C .. generate
