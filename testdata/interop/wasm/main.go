// SPDX-License-Identifier: Apache-2.0

//go:build wasip1

// Command wasm is an NRI test peer plugin built on the reference's WASM guest
// API (github.com/containerd/nri/pkg/api at v0.12.5, the wasip1 build). It is
// compiled with GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared and loaded
// in-process by the runtime. It reports every request it gets through the
// host's log function, and can be told, in its config text, to fail or to
// misbehave (trap, panic, exit, loop, sleep, grow its memory, flood the
// host's log or its output) in chosen handlers. See ../README.md.
package main

import "github.com/containerd/nri/pkg/api"

// apiVersion is the version of the reference module this guest is built on.
// It must match the requirement in go.mod.
const apiVersion = "v0.12.5"

func main() {}

func init() {
	api.RegisterPlugin(&plugin{cfg: &settings{}})
}
