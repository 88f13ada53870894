// SPDX-License-Identifier: Apache-2.0

// Starting a plugin with its stdout and stderr logged, kept or discarded.

package launch

import "github.com/sirupsen/logrus"

// OutputMode says what becomes of a started plugin's stdout and stderr.
type OutputMode int

// The output modes; adaptation's PluginOutput values are the same.
const (
	// OutputLog logs each line (a LogSink) and keeps the last lines.
	OutputLog OutputMode = iota
	// OutputKeep only keeps the last lines.
	OutputKeep
	// OutputDiscard gives the plugin the null device as stdout and stderr.
	OutputDiscard
)

// StartWithOutput is Start with the plugin's output handled as mode says;
// OutputLog logs its lines with log. A mode not listed logs.
func StartWithOutput(c Candidate, mode OutputMode, log *logrus.Entry) (*Process, error) {
	switch mode {
	case OutputDiscard:
		return Start(c)
	case OutputKeep:
		return StartCapturing(c, NewOutput(nil))
	default:
		return StartCapturing(c, NewOutput(NewLogSink(log)))
	}
}
