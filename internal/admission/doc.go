// SPDX-License-Identifier: Apache-2.0

// Package admission decides who may join now. It owns the places of the
// connections registering at once, in all and per process ([Admission]);
// the slots of the refused connections being answered ([Refusals]); the
// back-off of plugins that timed out synchronizing ([SyncBackoff]); the
// check of joining and leaving plugins against the event budget, with the
// ledger of plugins admitted but not joined yet ([Budget]); and the limits
// of the log lines about connections refused or failed before joining
// ([LogLimits]). [WorstCase], [SlowestTimeout] and [ValidatorsAmong] are the
// rules of an event's worst case, which the caller's event deadlines share.
//
// It needs the caller's plugins through the [Plugin] constraint (an ID, the
// events taken, the own timeout), the plugins active now and their dispatch
// order (passed to [NewBudget]), and the settings: the bounds and the error
// a refusal wraps ([Bounds]), and the event budget ([BudgetSettings]).
// adaptation keeps those public, re-exports [ErrSyncBackoff] and
// [ErrOverBudget], and answers a refused connection itself while it holds a
// slot.
package admission
