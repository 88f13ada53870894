// SPDX-License-Identifier: Apache-2.0

// The rollout keys (observer_queue, delivery, validation, filter): bad values fail New naming the
// key; a required plugin with a filter is warned about.

package adaptation_test

import (
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
)

func TestRolloutSettingsRefused(t *testing.T) {
	required := adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"10-gpu"}})
	for _, tc := range []struct {
		name string
		s    adaptation.PluginSettings
		more []adaptation.Option
		want string
	}{
		{"delivery", adaptation.PluginSettings{Delivery: "async"}, nil,
			`plugin_settings."gpu".delivery: "async" is neither "sync" nor "observe"`},
		{"validation", adaptation.PluginSettings{Validation: "warn"}, nil,
			`plugin_settings."gpu".validation: "warn" is neither "enforce" nor "dry-run"`},
		{"malformed glob", adaptation.PluginSettings{Filter: &adaptation.PluginFilter{Namespaces: []string{"ml-*", "[a"}}}, nil,
			`plugin_settings."gpu".filter.namespaces[1]: malformed glob "[a"`},
		{"empty selector", adaptation.PluginSettings{Filter: &adaptation.PluginFilter{PodLabels: []string{""}}}, nil,
			`plugin_settings."gpu".filter.pod_labels[0]: empty selector`},
		{"= without a key", adaptation.PluginSettings{Filter: &adaptation.PluginFilter{PodLabels: []string{"=true"}}}, nil,
			`plugin_settings."gpu".filter.pod_labels[0]: selector "=true": '=' without a key`},
		{"observer failing requests", adaptation.PluginSettings{Delivery: adaptation.DeliveryObserve, FailurePolicy: &adaptation.FailurePolicy{FailRequest: true}}, nil,
			`plugin_settings."gpu": an observer (delivery = "observe") cannot fail a request`},
		{"required observer", adaptation.PluginSettings{Delivery: adaptation.DeliveryObserve}, []adaptation.Option{required},
			`plugin_settings."gpu".delivery: "10-gpu" is a required plugin`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]adaptation.Option{adaptation.WithDisabledExternalConnections(), adaptation.WithPluginSettings("gpu", tc.s)}, tc.more...)
			if _, err := adaptation.New("r", "v", nil, nil, opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v, want %q", err, tc.want)
			}
		})
	}
	for _, n := range []int{0, -1, adaptation.MaxObserverQueue + 1} {
		if _, err := adaptation.New("r", "v", nil, nil, adaptation.WithObserverQueue(n)); err == nil || !strings.Contains(err.Error(), "observer_queue") {
			t.Errorf("WithObserverQueue(%d): %v, want an error naming observer_queue", n, err)
		}
	}
	bad := adaptation.BuiltinPlugin{Index: "10", Name: "memcap", Handler: &memCapper{name: "memcap"}, Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{""}}}
	if _, err := adaptation.New("r", "v", nil, nil, adaptation.WithBuiltinPlugins(bad)); err == nil || !strings.Contains(err.Error(), "builtin plugin 10-memcap: filter.runtime_handlers[0]") {
		t.Errorf("a built-in plugin's bad filter: %v", err)
	}
}

// New warns when a required plugin has a filter: the pods outside it fail
// their creations.
func TestRequiredPluginWithAFilterIsWarnedAbout(t *testing.T) {
	builtin := adaptation.BuiltinPlugin{Index: "10", Name: "gpu", Handler: &memCapper{name: "gpu"}, Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{"nvidia"}}}
	for name, filtered := range map[string]adaptation.Option{
		"the operator's": gpuOnly("10-gpu"),
		"its own":        adaptation.WithBuiltinPlugins(builtin),
	} {
		t.Run(name, func(t *testing.T) {
			logger, hook := logtest.NewNullLogger()
			_, err := adaptation.New("r", "v", nil, nil, adaptation.WithDisabledExternalConnections(), adaptation.WithLogger(logrus.NewEntry(logger)),
				adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"gpu"}}),
				filtered)
			if err != nil {
				t.Fatal(err)
			}
			var warned int
			for _, en := range hook.AllEntries() {
				if en.Level == logrus.WarnLevel && strings.Contains(en.Message, "a required plugin has a filter") && en.Data["plugin"] == "gpu" {
					warned++
				}
			}
			if warned != 1 {
				t.Errorf("%d warnings about the required plugin's filter, want 1", warned)
			}
		})
	}
}
