// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"os"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// childMain runs this test binary as a test plugin; it is set only where
// plugins can be launched (child_linux_test.go).
var childMain func(mode string) int

// Test plugins are this test binary itself, symlinked into a temporary plugin
// directory as NN-<mode>. Start replaces the child's environment, so the
// child cannot be recognised by a variable the test sets; it is recognised
// by the variable Start always sets, and behaves per NRI_PLUGIN_NAME.
func TestMain(m *testing.M) {
	if childMain != nil && os.Getenv("NRI_PLUGIN_SOCKET") == "3" {
		// syscall.Exit, not os.Exit: under -race, os.Exit lingers a second
		// in the race runtime's exit hook, which would slow every Stop.
		syscall.Exit(childMain(os.Getenv("NRI_PLUGIN_NAME")))
	}
	goleak.VerifyTestMain(m)
}
