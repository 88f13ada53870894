// SPDX-License-Identifier: Apache-2.0

// Package launch discovers pre-installed NRI plugins in the plugin directory
// and runs each one as a child process connected to the runtime by a
// socketpair passed as the child's fd 3.
package launch
