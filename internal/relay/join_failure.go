// SPDX-License-Identifier: Apache-2.0

// Reporting and logging a plugin that did not join (nri.Failed).

package relay

import (
	"context"
	"errors"
	"fmt"

	"github.com/nrikit/nrikit/internal/nri"
	"github.com/sirupsen/logrus"
)

// joinFailed reports a plugin that did not join, if err says so. A
// handshake that Stop cut short is no failure of the plugin.
func (r *Relay) joinFailed(ctx context.Context, kind nri.Kind, pid int, err error) {
	r.reportJoinFailure(ctx, kind, pid, err, nil)
}

func (r *Relay) reportJoinFailure(ctx context.Context, kind nri.Kind, pid int, err error, output []nri.OutputLine) {
	if err == nil {
		return
	}
	if ctx.Err() != nil {
		r.log.WithField("pid", pid).WithError(err).Info("nrikit: plugin handshake ended by Stop")
		return
	}
	change := nri.Change{Change: nri.Failed, Plugin: nri.Unregistered, Kind: kind.String(), PID: pid, Reason: err.Error(), Output: output}
	var perr *nri.PluginError
	if errors.As(err, &perr) {
		change.Plugin, change.Phase, change.Reason, change.Revision = perr.Plugin, perr.Op, perr.Err.Error(), perr.Revision
	}
	r.readiness.Failed(change.Plugin, change.Phase, change.Reason) // before the log line, so that Readiness agrees with it
	r.logJoinFailed(change, err)
	r.announce(change)
}

// logJoinFailed logs why a plugin did not join. Failures of external
// connections before or at registration are logged a few times per window:
// any local client can cause them at will.
func (r *Relay) logJoinFailed(change nri.Change, err error) {
	log := withStack(r.log.WithFields(logrus.Fields{"plugin": change.Plugin, "error": change.Reason}), err)
	if change.Kind == nri.External.String() && (change.Phase == "" || change.Phase == nri.PhaseRegister) {
		limit := r.joinLogs.Unregistered
		if change.Plugin != nri.Unregistered {
			limit = r.joinLogs.Named
		}
		var ok bool
		if log, ok = limit.AllowEntry(log); !ok {
			return
		}
	}
	if change.PID != 0 {
		log = log.WithField("pid", change.PID)
	}
	switch change.Phase {
	case "":
		log.Warn("nrikit: plugin connection failed")
	case nri.PhaseStart:
		log.Warn("nrikit: pre-installed plugin failed to start")
	default:
		log.WithField("phase", change.Phase).Warn(fmt.Sprintf("nrikit: plugin dropped during %s", change.Phase))
	}
}
