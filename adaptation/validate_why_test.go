// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestRequiredPluginRejectionSaysWhy: the default validator's rejection of a
// container whose required plugins did not handle its creation says why
// each is missing, as AwaitPlugins' error does: one never connected, one
// connected that timed out in this creation.
func TestRequiredPluginRejectionSaysWhy(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(300*time.Millisecond),
		adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"absent", "slow"}}),
		adaptation.WithPluginSettings("slow", adaptation.PluginSettings{FailurePolicy: &adaptation.FailurePolicy{KeepConnected: true}}))
	e.preinstall("20", "slow", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", 2*time.Second)})
	e.start()
	e.waitPlugins("20-slow")
	_, err := createUnder(t, e.a, context.Background(), "why")
	for _, want := range []string{
		`required plugins "absent", "slow" did not handle the container's creation (why: `,
		`"absent" never connected`,
		`"slow" (20-slow) is connected but did not answer this CreateContainer`,
	} {
		if !errors.Is(err, validator.ErrValidation) || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CreateContainer = %v, want a rejection saying %s", err, want)
		}
	}
}
