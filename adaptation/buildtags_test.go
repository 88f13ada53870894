// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"os/exec"
	"strings"
	"testing"
)

const wazeroModule = "github.com/tetratelabs/wazero"

// TestWASMBuildTags: the reference's nri_no_wasm tag leaves wazero out of a
// runtime's binary just as nrikit's own nrikit_no_wasm does, so a port that
// keeps its build flags keeps WASM plugin loading off.
func TestWASMBuildTags(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the package's dependencies: %v", err)
	}
	if !linksWazero(t, goTool) {
		t.Fatalf("the default build does not link %s: the check below would prove nothing", wazeroModule)
	}
	for _, tag := range []string{"nrikit_no_wasm", "nri_no_wasm"} {
		if linksWazero(t, goTool, "-tags", tag) {
			t.Errorf("a build with tag %s still links %s", tag, wazeroModule)
		}
	}
}

func linksWazero(t *testing.T, goTool string, flags ...string) bool {
	t.Helper()
	args := append([]string{"list", "-deps"}, flags...)
	out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == wazeroModule || strings.HasPrefix(pkg, wazeroModule+"/") {
			return true
		}
	}
	return false
}
