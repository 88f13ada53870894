// SPDX-License-Identifier: Apache-2.0

// Package sockpair makes connected AF_UNIX stream socket pairs for tests:
// the transport a runtime hands a launched plugin, without a socket file.
// Where the OS has none, the test asking for one is skipped; its code still
// builds there, so vet checks it.
package sockpair
