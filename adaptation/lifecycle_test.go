// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"testing"

	"github.com/nrikit/nrikit/internal/testplugin"
)

func TestLifecycleExternalAndPreinstalled(t *testing.T) {
	e := newEnv(t)
	e.preinstall("20", "pre", testplugin.Config{Annotations: map[string]string{"pre.example/x": "1"}})
	e.start()
	e.external("10", "ext", testplugin.Config{Annotations: map[string]string{"ext.example/y": "2"}})
	e.waitPlugins("10-ext", "20-pre")

	created := runLifecycle(t, e.a, "p1")

	for _, name := range []string{"ext", "pre"} {
		if got := e.events(name); !equal(got, fullLifecycleEvents) {
			t.Errorf("%s got events\n%v\nwant\n%v", name, got, fullLifecycleEvents)
		}
	}
	ann := created[0].GetAdjust().GetAnnotations()
	if ann["pre.example/x"] != "1" || ann["ext.example/y"] != "2" {
		t.Errorf("merged annotations = %v, want both plugins' annotations", ann)
	}
}
