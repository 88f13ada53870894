// SPDX-License-Identifier: Apache-2.0

// Package v1beta1 holds the ttrpc glue of the proposed v1beta1 revision of the
// NRI protocol: the services nri.pkg.api.v1beta1.Runtime and
// nri.pkg.api.v1beta1.Plugin over nrikit's own message types (package api),
// which both revisions share on the wire. It is generated from services.proto.
package v1beta1
