// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"io"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/records"
	"github.com/nrikit/nrikit/internal/status"
)

// testConfig is a quiet relay's configuration with the runtime's defaults:
// no socket, an empty plugin path, no metrics, no records.
func testConfig(t *testing.T) Config {
	t.Helper()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	return Config{
		RuntimeName: "test", RuntimeVersion: "v1", NRIVersion: "v0.12.5",
		PluginPath: t.TempDir(), PluginConfigPath: t.TempDir(),
		Registration: 5 * time.Second, Request: 2 * time.Second, SyncTimeout: 10 * time.Second,
		DeadlineReserve: 100 * time.Millisecond, BudgetCheck: admission.BudgetWarn,
		Registering: admission.Bounds{Total: 128, PerPID: 16, Refused: admission.ErrSyncBackoff},
		Log:         logrus.NewEntry(quiet),
		Metrics:     NoMetrics{},
		Records:     records.New(0),
		Joining:     &status.Joining{},
		PluginError: func(plugin, op string, err error) error { return &nri.PluginError{Plugin: plugin, Op: op, Err: err} },
	}
}
