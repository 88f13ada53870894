// SPDX-License-Identifier: Apache-2.0

//go:build race

package adaptation_test

// raceEnabled: the race detector slows encoding tenfold, too much for tests
// that move a big node's state; those run in make test's non-race step.
const raceEnabled = true
