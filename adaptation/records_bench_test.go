// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"testing"

	"github.com/nrikit/nrikit/adaptation"
)

// BenchmarkCreateContainerRecords is BenchmarkCreateContainer with
// container records on, at a cap the benchmark exceeds, so that it
// measures recording and evicting: compare its allocs/op with
// BenchmarkCreateContainer's (at most one more).
func BenchmarkCreateContainerRecords(b *testing.B) {
	for _, c := range dispatchCases {
		b.Run(c.String(), func(b *testing.B) { benchCreateContainer(b, c, adaptation.WithContainerRecords(256)) })
	}
}
