// SPDX-License-Identifier: Apache-2.0

// Plugins' scopes of pods (the operator's filter): the lifecycle's decisions, and what a plugin
// may not change outside its scope.

package relay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/filter"
	"github.com/nrikit/nrikit/internal/readiness"
)

// pluginScopes is the lifecycle store's view of the plugins' filters
// (lifecycle.Scopes).
type pluginScopes struct{}

func (pluginScopes) Filtered(p *plugin) bool                   { return p.rollout.filter != nil }
func (pluginScopes) Takes(p *plugin, pod *api.PodSandbox) bool { return p.rollout.filter.Matches(pod) }

// anyFilter tells whether the operator or a built-in plugin gave any
// plugin a scope: without one, nothing on the event path asks.
func (c *Config) anyFilter() bool {
	for _, s := range c.Settings {
		if s.Filter != nil {
			return true
		}
	}
	for _, b := range c.Builtins {
		if b.Filter != nil {
			return true
		}
	}
	return false
}

// outOfScope says why an entry of p's was dropped: the container is
// outside its scope.
func outOfScope(p *plugin) string { return "container not in plugin " + p.id + "'s scope" }

// inScope splits a filtered plugin's updates by their container's scope.
func (r *Relay) inScope(p *plugin, updates []*api.ContainerUpdate) (kept, dropped []*api.ContainerUpdate) {
	for i, u := range updates {
		if u != nil && u.GetContainerId() != "" && !r.lifecycle.ContainerInScope(p, u.GetContainerId()) {
			if dropped == nil {
				kept = append(kept, updates[:i]...)
			}
			dropped = append(dropped, u)
			continue
		}
		if dropped != nil {
			kept = append(kept, u)
		}
	}
	if dropped == nil {
		return updates, nil
	}
	return kept, dropped
}

// evictionsInScope is inScope for evictions.
func (r *Relay) evictionsInScope(p *plugin, evictions []*api.ContainerEviction) (kept []*api.ContainerEviction, dropped int) {
	for _, e := range evictions {
		if e != nil && e.GetContainerId() != "" && !r.lifecycle.ContainerInScope(p, e.GetContainerId()) {
			dropped++
			continue
		}
		kept = append(kept, e)
	}
	if dropped == 0 {
		return evictions, 0
	}
	return kept, dropped
}

// logOutOfScope logs, at most once a minute per plugin, the entries of a
// reply or an UpdateContainers dropped for their container's scope.
func (r *Relay) logOutOfScope(p *plugin, call string, updates []*api.ContainerUpdate, evictions int) {
	if len(updates) == 0 && evictions == 0 {
		return
	}
	if log, ok := p.rollout.scopeLog.AllowEntry(p.log); ok {
		fields := logrus.Fields{"call": call, "updates": len(updates), "evictions": evictions}
		if len(updates) > 0 {
			fields["container"] = updates[0].GetContainerId()
		}
		log.WithFields(fields).Warn("nrikit: " + outOfScope(p) + ": its changes of the container dropped")
	}
}

// scopedChanges are a filtered plugin's updates and evictions in its reply
// to call without those of containers outside its scope, logged; changed
// is false when none was dropped.
func (r *Relay) scopedChanges(p *plugin, call string, updates []*api.ContainerUpdate, evictions []*api.ContainerEviction) (_ []*api.ContainerUpdate, _ []*api.ContainerEviction, changed bool) {
	if p.rollout.filter == nil || len(updates)+len(evictions) == 0 {
		return updates, evictions, false
	}
	kept, dropped := r.inScope(p, updates)
	left, gone := r.evictionsInScope(p, evictions)
	if dropped == nil && gone == 0 {
		return updates, evictions, false
	}
	r.logOutOfScope(p, call, dropped, gone)
	return kept, left, true
}

// scopedCreateReply is a filtered plugin's CreateContainer reply without
// the updates and evictions of containers outside its scope.
func (r *Relay) scopedCreateReply(p *plugin, rsp *api.CreateContainerResponse) *api.CreateContainerResponse {
	if updates, evictions, changed := r.scopedChanges(p, "CreateContainer", rsp.GetUpdate(), rsp.GetEvict()); changed {
		return &api.CreateContainerResponse{Adjust: rsp.GetAdjust(), Update: updates, Evict: evictions}
	}
	return rsp
}

// scopedUpdateReply is scopedCreateReply for UpdateContainer.
func (r *Relay) scopedUpdateReply(p *plugin, rsp *api.UpdateContainerResponse) *api.UpdateContainerResponse {
	if updates, evictions, changed := r.scopedChanges(p, "UpdateContainer", rsp.GetUpdate(), rsp.GetEvict()); changed {
		return &api.UpdateContainerResponse{Update: updates, Evict: evictions}
	}
	return rsp
}

// scopedStopReply is scopedCreateReply for StopContainer.
func (r *Relay) scopedStopReply(p *plugin, rsp *api.StopContainerResponse) *api.StopContainerResponse {
	if updates, _, changed := r.scopedChanges(p, "StopContainer", rsp.GetUpdate(), nil); changed {
		return &api.StopContainerResponse{Update: updates}
	}
	return rsp
}

// scopedUnsolicited moves a filtered plugin's unsolicited updates of
// containers outside its scope to failed: they never reach the runtime.
func (r *Relay) scopedUnsolicited(p *plugin, updates, failed []*api.ContainerUpdate) (kept, withFailed []*api.ContainerUpdate) {
	if p.rollout.filter == nil {
		return updates, failed
	}
	kept, dropped := r.inScope(p, updates)
	r.logOutOfScope(p, "UpdateContainers", dropped, 0)
	return kept, append(failed, dropped...)
}

// filterOf is the scope of the plugin a required name ("name" or
// "idx-name") matches, as the readiness gate and the default validator
// match names: the active plugin's, else what the operator's settings (or
// a built-in plugin) give that name; nil when it has none.
func (r *Relay) filterOf(name string) *filter.Selector {
	for _, p := range r.registry.all() {
		if readiness.Matches(name, p.id) {
			return p.rollout.filter
		}
	}
	for _, b := range r.cfg.Builtins {
		if readiness.Matches(name, api.PluginID(b.Index, b.Name)) && b.Filter != nil {
			return b.Filter
		}
	}
	if s, ok := r.cfg.Settings[name]; ok && s.Filter != nil {
		return s.Filter
	}
	if idx, bare, ok := strings.Cut(name, "-"); ok && api.ValidatePluginIndex(idx) == nil {
		return r.cfg.Settings[bare].Filter // the bare name's entry applies to "idx-name"
	}
	for key, s := range r.cfg.Settings {
		if s.Filter != nil && readiness.Matches(name, key) {
			return s.Filter // an "idx-name" entry of the bare name
		}
	}
	return nil
}

// explainMissing adds to the default validator's rejection of a creation
// why each required plugin that did not handle it is missing: a plugin
// whose scope leaves the pod out never took part, so it cannot have
// approved (plugin_settings filter); for the others, their story from the
// readiness tracker.
func (r *Relay) explainMissing(err error, req *api.ValidateContainerAdjustmentRequest) error {
	missing := r.cfg.DefaultValidator.MissingPlugins(req)
	if len(missing) == 0 {
		return err
	}
	pod := req.GetPod()
	var notes []string
	if r.filters {
		missing = slices.DeleteFunc(missing, func(name string) bool {
			f := r.filterOf(name)
			if f == nil || f.Matches(pod) {
				return false
			}
			notes = append(notes, fmt.Sprintf("required plugin %s: pod %s/%s not in its scope (plugin_settings filter)", name, pod.GetNamespace(), pod.GetName()))
			return true
		})
	}
	if len(missing) > 0 {
		err = fmt.Errorf("%w (why: %s)", err, strings.Join(r.readiness.Explain(missing), "; "))
	}
	if notes != nil {
		err = fmt.Errorf("%w; %s", err, strings.Join(notes, "; "))
	}
	return err
}
