// SPDX-License-Identifier: Apache-2.0

// Package wasmhost runs NRI plugins compiled to WebAssembly in-process, on
// the wazero runtime, speaking the guest ABI of the reference's released WASM
// plugin API:
//
//   - the guest exports plugin_api_version() -> i64, which must answer 1;
//   - malloc(i32) -> i32 and free(i32) manage buffers in its linear memory;
//   - each Plugin RPC is an export plugin_<method>(ptr, size i32) -> i64 that
//     takes the protobuf-encoded request at ptr and answers ptr<<32 | size,
//     where bit 31 of size marks an error string instead of a reply;
//   - the guest imports env.log(ptr, size i32) -> i64, taking a LogRequest.
//
// A Guest is one instance of one module: compiled once, instantiated once,
// called one request at a time. A call that traps, exits, overruns its
// deadline or breaks the ABI leaves the guest's state unknown, so the
// instance is closed and the guest is dead from then on.
//
// Building with the tag nrikit_no_wasm (or the reference's nri_no_wasm) leaves
// this package, and wazero, out.
package wasmhost
