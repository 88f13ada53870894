// SPDX-License-Identifier: Apache-2.0

// Command nritest plays a container runtime that links nrikit: it starts NRI
// plugins, drives one pod with two containers through its whole lifecycle,
// and reports what every plugin got, how long it took and what it changed.
//
// With no arguments it runs three bundled sample plugins as real processes
// (this binary, re-executed in plugin mode) over the real protocol.
package main
