// SPDX-License-Identifier: Apache-2.0

// A launched plugin's process, started with its output handled as the runtime chose.

package relay

import (
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
)

// startProcess starts a pre-installed plugin with its output handled as the
// runtime chose.
func (r *Relay) startProcess(c launch.Candidate) (*launch.Process, error) {
	return launch.StartWithOutput(c, r.cfg.PluginOutput, r.log.WithField("plugin", c.ID()))
}

// outputLines is a launched plugin's last lines as a Change carries them;
// nil when there are none.
func outputLines(lines []launch.Line) []nri.OutputLine {
	if len(lines) == 0 {
		return nil
	}
	out := make([]nri.OutputLine, len(lines))
	for i, l := range lines {
		out[i] = nri.OutputLine{Stream: l.Stream, Text: l.Text}
	}
	return out
}
