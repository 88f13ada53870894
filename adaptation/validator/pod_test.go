// SPDX-License-Identifier: Apache-2.0

package validator_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// ForPod reads the pod-scoped annotations only, adds the annotated plugins
// to the configured ones once each, and allocates nothing for a pod without
// them.
func TestForPod(t *testing.T) {
	v := validator.NewDefaultValidator(&validator.DefaultValidatorConfig{
		Enable: true, RequiredPlugins: []string{"a"}, TolerateMissingAnnotation: "tolerate",
	})
	for _, tc := range []struct {
		annotations map[string]string
		want        []string
		tolerated   bool
		err         string
	}{
		{nil, []string{"a"}, false, ""},
		{map[string]string{validator.RequiredPlugins + "/pod": "[b, a, b]"}, []string{"a", "b"}, false, ""},
		{map[string]string{validator.RequiredPlugins: "[c]", validator.RequiredPlugins + "/pod": "[b]"}, []string{"a", "b"}, false, ""},
		{map[string]string{validator.RequiredPlugins + "/container.app": "[c]"}, []string{"a"}, false, ""},
		{map[string]string{"tolerate": "true", validator.RequiredPlugins: "[c]"}, nil, true, ""},
		{map[string]string{"tolerate/pod": "false", "tolerate": "true"}, []string{"a"}, false, ""},
		{map[string]string{"tolerate/container.app": "true"}, []string{"a"}, false, ""},
		{map[string]string{"tolerate/pod": "maybe"}, nil, false, "not a boolean"},
		{map[string]string{validator.RequiredPlugins: "{"}, nil, false, "not a YAML list"},
	} {
		got, err := v.ForPod(&api.PodSandbox{Annotations: tc.annotations})
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want %q", tc.annotations, err, tc.err)
			continue
		}
		if err == nil && (!slices.Equal(got.Plugins, tc.want) || got.Tolerated != tc.tolerated) {
			t.Errorf("%v: %+v, want %v tolerated %v", tc.annotations, got, tc.want, tc.tolerated)
		}
	}
	if r := v.RequiredPlugins(); len(r) != 1 || r[0] != "a" {
		t.Errorf("RequiredPlugins() = %v, want [a], unchanged by the annotations", r)
	}
	pod := &api.PodSandbox{Annotations: map[string]string{"other": "x"}}
	if n := testing.AllocsPerRun(100, func() { _, _ = v.ForPod(pod) }); n != 0 {
		t.Errorf("ForPod of a pod without the annotations allocates %v times", n)
	}
}
