// SPDX-License-Identifier: Apache-2.0

// Config: the gate's settings, as the adaptation's options made them.

package readiness

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation/validator"
)

// Config is the gate's settings: plugin_readiness, the default validator,
// deadline_reserve and the runtime's callback. The adaptation checked them.
type Config struct {
	// Wait bounds how long a pod waits for its required plugins; 0 turns
	// the gate off.
	Wait time.Duration
	// Proceed is on_timeout = "proceed": at the bound a pod goes on without
	// its required plugins, with a warning, instead of failing with
	// ErrPluginsNotReady.
	Proceed bool
	// Exempt are the namespaces whose pods never wait.
	Exempt []string
	// Validator tells the node-level required plugins and what a pod
	// requires (its required-plugins annotation): the default validator, or
	// with the gate on and the validator off one that reads the same
	// table; nil: no plugin is required.
	Validator *validator.DefaultValidator
	// DeadlineReserve is what a pod's wait leaves of its caller's deadline
	// besides its RunPodSandbox's plugin calls (deadline_reserve).
	DeadlineReserve time.Duration
	// SetupReserve is what a pod's wait leaves of its caller's deadline for
	// the runtime's own work between AwaitPlugins and its RunPodSandbox
	// event (plugin_readiness.setup_reserve).
	SetupReserve time.Duration
	// Notify is called with the new State on each flip of Ready; nil if
	// the runtime set no callback.
	Notify func(State)
	// Log takes the gate's warnings.
	Log *logrus.Entry
}
