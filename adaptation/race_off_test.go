// SPDX-License-Identifier: Apache-2.0

//go:build !race

package adaptation_test

const raceEnabled = false
