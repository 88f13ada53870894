// SPDX-License-Identifier: Apache-2.0

package interoptest_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/nrikit/nrikit/internal/interoptest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		interoptest.Cleanup()
		os.Exit(code)
	}))
}
