// SPDX-License-Identifier: Apache-2.0

// What each plugin may change (plugin_settings allow, internal/scope): checking its replies, its
// unsolicited updates and its synchronization's updates before they are merged or handed on.

package relay

import (
	"fmt"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/ratelog"
	"github.com/nrikit/nrikit/internal/scope"
)

// ErrOutOfScope: a plugin's reply or update changes what the operator did
// not allow it to (plugin_settings allow). A setup event it fails also
// matches ErrRejected, as a validator's rejection does.
var ErrOutOfScope = scope.ErrOutOfScope

// scopeError is a reply refused for its scope: the event fails as for a
// validator's rejection (classify: failRejected), and the plugin stays.
type scopeError struct{ error }

func (e scopeError) Unwrap() []error { return []error{e.error, ErrRejected} }

// scopeLogWindow bounds the warnings about one plugin's refused
// unsolicited or synchronization updates, which it may send at will.
const scopeLogWindow = time.Minute

// applyScope gives p the operator's scope of s, All when s has none.
func (p *plugin) applyScope(s Settings) {
	p.allow = scope.All
	if s.Allow != nil {
		p.allow = *s.Allow
		p.scopeLog = ratelog.New(1, scopeLogWindow)
	}
}

// scoped tells whether the operator limited what p may change: only then
// is a reply looked at, so that an unset scope costs this comparison.
func (p *plugin) scoped() bool { return p.allow != scope.All }

// allowed is p's scope for PluginInfo: nil when not limited.
func (p *plugin) allowed() *scope.Set {
	if !p.scoped() {
		return nil
	}
	s := p.allow
	return &s
}

// checkScope says what touched holds outside p's scope, naming the
// classes and the setting; nil when nothing.
func (p *plugin) checkScope(touched scope.Set) error {
	if err := scope.Check(p.allow, touched); err != nil {
		return scopeError{fmt.Errorf("%w (plugin_settings.%q.allow)", err, p.settingsKey)}
	}
	return nil
}

// createInScope is the scope check of a CreateContainer reply.
func (p *plugin) createInScope(rsp *api.CreateContainerResponse) error {
	if !p.scoped() {
		return nil
	}
	return p.checkScope(scope.Create(rsp))
}

// updateInScope is the scope check of an UpdateContainer reply; target is
// the container being updated.
func (p *plugin) updateInScope(rsp *api.UpdateContainerResponse, target string) error {
	if !p.scoped() {
		return nil
	}
	return p.checkScope(scope.Update(rsp, target))
}

// stopInScope is the scope check of a StopContainer reply.
func (p *plugin) stopInScope(rsp *api.StopContainerResponse) error {
	if !p.scoped() {
		return nil
	}
	return p.checkScope(scope.Stop(rsp))
}

// updatesInScope is the scope check of updates p sends on its own
// (UpdateContainers) or from Synchronize (what, for the warning); a
// refusal is logged at most once per scopeLogWindow.
func (p *plugin) updatesInScope(what string, updates []*api.ContainerUpdate) error {
	if !p.scoped() {
		return nil
	}
	err := p.checkScope(scope.ContainerUpdates(updates))
	if err != nil {
		if log, ok := p.scopeLog.AllowEntry(p.log); ok {
			log.WithError(err).WithField("count", len(updates)).Warn("nrikit: " + what + " refused: outside the plugin's scope")
		}
	}
	return err
}
