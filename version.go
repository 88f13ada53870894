// SPDX-License-Identifier: Apache-2.0

// Package nrikit holds what belongs to the module as a whole: its version.
// The code a runtime links is in the adaptation, adaptation/ocispec,
// adaptation/validator and api packages.
package nrikit

// Version is this module's version, the tag it is released under. The
// adaptation package logs it when a runtime calls Start and nritest prints
// it for --version. It is not the NRI protocol version nrikit announces to
// plugins (adaptation.Version), nor the runtime's own version, which the
// runtime passes to adaptation.New and plugins receive in Configure.
const Version = "v0.1.0"
