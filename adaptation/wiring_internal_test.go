// SPDX-License-Identifier: Apache-2.0

// The public constants against the components' own, which the wiring hands them or converts them to.

package adaptation

import (
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/internal/admission"
	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/pluginconn"
	"github.com/nrikit/nrikit/internal/records"
	"github.com/nrikit/nrikit/internal/relay"
	"github.com/nrikit/nrikit/internal/status"
)

func TestPublicConstantsAreTheComponents(t *testing.T) {
	for _, c := range []struct {
		name           string
		public, theirs any
	}{
		{"MaxPendingPluginCalls", MaxPendingPluginCalls, pluginconn.MaxPendingPluginCalls},
		{"MaxUnsolicitedUpdates", MaxUnsolicitedUpdates, pluginconn.MaxUnsolicitedUpdates},
		{"MaxPluginUpdatesInFlight", MaxPluginUpdatesInFlight, relay.MaxPluginUpdatesInFlight},
		{"DefaultShutdownGrace", DefaultShutdownGrace, relay.DefaultShutdownGrace},
		{"KindExternal", KindExternal, nri.External.String()},
		{"KindPreinstalled", KindPreinstalled, nri.Preinstalled.String()},
		{"KindBuiltin", KindBuiltin, nri.Builtin.String()},
		{"KindWASM", KindWASM, nri.WASM.String()},
		{"RevisionV1alpha1", RevisionV1alpha1, pluginconn.V1alpha1.Name},
		{"RevisionV1beta1", RevisionV1beta1, pluginconn.V1beta1.Name},
		{"FromOperator", FromOperator, relay.FromOperator},
		{"FromPlugin", FromPlugin, relay.FromPlugin},
		{"FromDefault", FromDefault, relay.FromDefault},
		{"ReasonRuntimeStopping", ReasonRuntimeStopping, nri.ReasonRuntimeStopping},
		{"ReasonReplaced", ReasonReplaced, nri.ReasonReplaced},
		{"ReasonRestarted", ReasonRestarted, nri.ReasonRestarted},
		{"DeprecatedStateChange", DeprecatedStateChange.String(), relay.DeprecatedStateChange},
		{"MaxRecentChanges", MaxRecentChanges, status.MaxRecentChanges},
		{"MaxRecentRefused", MaxRecentRefused, status.MaxRecentRefused},
		{"MaxRecordFields", MaxRecordFields, records.MaxFields},
		{"MaxRecordKeyBytes", MaxRecordKeyBytes, records.MaxKeyBytes},
		{"MaxStatusClients", MaxStatusClients, status.MaxClients},
		{"UpdateByReply", UpdateByReply, records.ByReply},
		{"UpdateByCreation", UpdateByCreation, records.ByCreation},
		{"UpdateByPlugin", UpdateByPlugin, records.ByPlugin},
		{"UpdateByStop", UpdateByStop, records.ByStop},
		{"BudgetWarn", BudgetWarn, admission.BudgetWarn},
		{"BudgetRefuse", BudgetRefuse, admission.BudgetRefuse},
		{"BudgetOff", BudgetOff, admission.BudgetOff},
		{"PluginOutputLog", int(PluginOutputLog), int(launch.OutputLog)},
		{"PluginOutputKeep", int(PluginOutputKeep), int(launch.OutputKeep)},
		{"PluginOutputDiscard", int(PluginOutputDiscard), int(launch.OutputDiscard)},
		{"OutputLogBurst", OutputLogBurst, launch.LogBurst},
		{"OutputLogWindow", OutputLogWindow, launch.LogWindow},
		{"DefaultObserverQueue", DefaultObserverQueue, relay.DefaultObserverQueue},
		{"ObserverQueueBytes", ObserverQueueBytes, relay.ObserverQueueBytes},
		{"default_validator (a dry-run verdict's validator)", "default_validator", records.DefaultValidator},
	} {
		if fmt.Sprint(c.public) != fmt.Sprint(c.theirs) {
			t.Errorf("%s is %v, the component's %v", c.name, c.public, c.theirs)
		}
	}
	for _, c := range []struct {
		public Outcome
		theirs nri.Outcome
	}{
		{OutcomeOK, nri.OutcomeOK}, {OutcomeError, nri.OutcomeError}, {OutcomeTimeout, nri.OutcomeTimeout},
		{OutcomeLost, nri.OutcomeLost}, {OutcomeCanceled, nri.OutcomeCanceled}, {OutcomeRejected, nri.OutcomeRejected},
	} {
		if string(c.public) != string(c.theirs) {
			t.Errorf("Outcome %q is %q in internal/nri", c.public, c.theirs)
		}
	}
	for _, c := range []struct {
		public ChangeKind
		theirs nri.ChangeKind
	}{
		{PluginJoined, nri.Joined}, {PluginLeft, nri.Left}, {PluginFailed, nri.Failed}, {PluginSkipped, nri.Skipped},
	} {
		if string(c.public) != string(c.theirs) {
			t.Errorf("ChangeKind %q is %q in internal/nri", c.public, c.theirs)
		}
	}
}
