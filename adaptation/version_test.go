// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit"
)

// Start logs nrikit's own version beside the runtime's, so that an operator
// reading a runtime's log knows which nrikit it links.
func TestStartLogsNrikitVersion(t *testing.T) {
	e := newEnv(t)
	e.start()
	e.waitLoggedLine("nrikit: starting", logrus.Fields{
		"version": nrikit.Version, "runtime": "nritest-runtime", "runtime_version": "v1.0.0",
	})
}
