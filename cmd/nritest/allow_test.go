// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
)

// --allow runs a plugin under an operator's scope: the annotator allowed
// only env fails the creations it annotates, naming itself and the class,
// as a plugin author will see it under such a runtime; allowed both, it
// passes. A class that is none, or --allow with --conformance, is a usage
// error.
func TestAllowShowsARefusal(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--allow", "20-annotator=env")
	want := `error: nrikit: plugin 20-annotator: CreateContainer: change outside the plugin's scope: annotations, not in its allow list [env] (plugin_settings."20-annotator".allow)`
	if r.code != exitFailed || !strings.Contains(r.stdout, want) {
		t.Errorf("--allow 20-annotator=env: exit %d, want 1 and the refusal %q:\n%s", r.code, want, r.stdout)
	}
	if ok := runCmd(t, "--allow", "20-annotator=annotations,env", "--allow", "logger="); ok.code != exitOK {
		t.Errorf("the annotator allowed what it changes, the logger nothing: exit %d\n%s%s", ok.code, ok.stdout, ok.stderr)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow", "20-annotator=environment"}, `"environment" is not a class of changes`},
		{[]string{"--allow", "annotations"}, `"annotations" is not KEY=CLASS[,CLASS...]`},
		{[]string{"--allow", "x=env", "--allow", "x=env"}, "x given twice"},
		{[]string{"--conformance", "--allow", "x=env"}, "--allow does not apply to --conformance"},
	} {
		if r := runCmd(t, bad.args...); r.code != exitUsage || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%q: exit %d, stderr %q; want a usage error saying %q", bad.args, r.code, r.stderr, bad.want)
		}
	}
}
