// SPDX-License-Identifier: Apache-2.0

// The public output settings against internal/launch's, which startProcess converts them to.

package adaptation

import (
	"testing"

	"github.com/nrikit/nrikit/internal/launch"
)

func TestPluginOutputIsLaunchs(t *testing.T) {
	for _, m := range []struct {
		public PluginOutput
		launch launch.OutputMode
	}{
		{PluginOutputLog, launch.OutputLog},
		{PluginOutputKeep, launch.OutputKeep},
		{PluginOutputDiscard, launch.OutputDiscard},
	} {
		if launch.OutputMode(m.public) != m.launch {
			t.Errorf("PluginOutput %d converts to launch's %d", m.public, m.launch)
		}
	}
	if OutputLogBurst != launch.LogBurst || OutputLogWindow != launch.LogWindow {
		t.Errorf("OutputLogBurst, OutputLogWindow = %d, %v; launch logs %d per %v",
			OutputLogBurst, OutputLogWindow, launch.LogBurst, launch.LogWindow)
	}
}
