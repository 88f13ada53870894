// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// FromOCILinuxNamespaces converts spec namespaces, in order. No namespaces
// gives nil.
func FromOCILinuxNamespaces(o []rspec.LinuxNamespace) []*LinuxNamespace {
	var out []*LinuxNamespace
	for _, ns := range o {
		out = append(out, &LinuxNamespace{Type: string(ns.Type), Path: ns.Path})
	}
	return out
}
