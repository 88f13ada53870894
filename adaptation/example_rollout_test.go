// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"fmt"

	"github.com/nrikit/nrikit/adaptation"
)

// An operator rolls plugins out in plugin_settings: 30-gpu hears only of
// the pods of the nvidia runtime handler, 10-logger is an observer, and
// 50-policy's verdicts are logged and counted, never enforced. Status
// shows the settings in effect.
func ExamplePluginFilter() {
	a, err := adaptation.New("myruntime", "v1.2.3", noSync, nil, quietLogger(),
		adaptation.WithPluginPath(""), adaptation.WithDisabledExternalConnections(),
		adaptation.WithPluginSettings("30-gpu", adaptation.PluginSettings{
			Filter: &adaptation.PluginFilter{RuntimeHandlers: []string{"nvidia"}},
		}),
		adaptation.WithPluginSettings("10-logger", adaptation.PluginSettings{Delivery: adaptation.DeliveryObserve}),
		adaptation.WithPluginSettings("50-policy", adaptation.PluginSettings{Validation: adaptation.ValidationDryRun}),
	)
	if err != nil {
		panic(err)
	}
	settings := a.Status().Settings.PluginSettings
	fmt.Println(settings["30-gpu"].Filter.RuntimeHandlers, settings["10-logger"].Delivery, settings["50-policy"].Validation)
	// Output:
	// [nvidia] observe dry-run
}
