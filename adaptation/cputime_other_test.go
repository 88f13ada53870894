// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package adaptation_test

import "time"

// processCPU is not measured here: the benchmarks report it as 0.
func processCPU() time.Duration { return 0 }
