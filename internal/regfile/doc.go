// SPDX-License-Identifier: Apache-2.0

// Package regfile reads files that an operator puts in place for the
// runtime (a plugin's config drop-in, a WASM module) without trusting what
// kind of file they are or how big.
//
// os.ReadFile would block for ever on a named pipe that no one writes, and
// read /dev/zero, or a regular file of many gigabytes, until the runtime runs
// out of memory. Read refuses anything but a regular file, before opening it
// (so that opening a device has no side effects) and again after (in case the
// path was swapped in between, the file is opened without blocking), and it
// stops reading at a limit.
package regfile
