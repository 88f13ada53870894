// SPDX-License-Identifier: Apache-2.0

package ocispec

import "testing"

// The host's real mount table: a path is held by the deepest mount above
// it, so a path no mount point is under reads as the root mount.
func TestMountinfoPropagation(t *testing.T) {
	root, err := mountinfoPropagation("/")
	if err != nil {
		t.Fatal(err)
	}
	switch root {
	case "", propagationShared, propagationSlave:
	default:
		t.Fatalf("root mount propagation %q", root)
	}
	under, err := mountinfoPropagation("/no-such-dir-under-root/x/../y")
	if err != nil || under != root {
		t.Errorf("a path under / only: %q, %v; want the root's %q", under, err, root)
	}
}
