// SPDX-License-Identifier: Apache-2.0

// Package launch discovers pre-installed NRI plugins in the plugin directory
// and runs each one as a child process connected to the runtime by a
// socketpair passed as the child's fd 3.
//
// It also owns a launched plugin's output: it reads the plugin's stdout and
// stderr to their end, keeps the last lines ([Output], [Process.LastLines])
// and logs each line, rate-limited ([LogSink]), or gives the plugin the null
// device, as the caller chooses ([StartWithOutput]). It needs the caller's
// log entry for the lines; adaptation keeps the choice public
// (PluginOutput) and converts the lines kept for its PluginChange.
package launch
