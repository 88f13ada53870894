// SPDX-License-Identifier: Apache-2.0

// The operator's per-plugin settings applied at registration: each plugin's effective timeout and policy.

package relay

import (
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/nri"
)

// Where a plugin's effective request timeout or failure policy came from,
// as PluginInfo and the "plugin connected" log line say.
const (
	FromOperator = "operator" // the plugin_settings table
	FromPlugin   = "plugin"   // the plugin's ConfigureResponse
	FromDefault  = "default"  // the runtime's setting for every plugin
)

// settingsFor is the operator's entry for p: its "NN-name" one, else its
// "name" one.
func (c *Config) settingsFor(p *plugin) (Settings, bool) {
	s, _, ok := c.settingsOf(p.id, p.name)
	return s, ok
}

// settingsOf is the operator's entry for the plugin id (idx-name) and
// name, and its key: the "NN-name" entry, else the bare name's. A name that
// begins like NN-name ("10-dranet" at index 05) has no bare entry: its key
// would be the NN-name entry of another plugin.
func (c *Config) settingsOf(id, name string) (Settings, string, bool) {
	if s, ok := c.Settings[id]; ok {
		return s, id, true
	}
	if IDKey(name) {
		return Settings{}, "", false
	}
	s, ok := c.Settings[name]
	return s, name, ok
}

// IDKey tells whether a plugin_settings key is an "NN-name" key, one that
// begins with digits and a '-', rather than a bare name: the key of one
// index and name. One whose digits are not a valid index is neither.
func IDKey(key string) bool {
	idx, _, ok := strings.Cut(key, "-")
	return ok && idx != "" && strings.Trim(idx, "0123456789") == ""
}

// applySettings gives p its effective request timeout, from the operator's
// settings or the runtime's default; called at each registration. (Its
// settings key and scope were set when it was made: Relay.newPlugin.)
func (r *Relay) applySettings(p *plugin) {
	p.timeout, p.timeoutFrom = r.cfg.Request, FromDefault
	s, ok := r.cfg.settingsFor(p)
	if ok && s.RequestTimeout > 0 {
		p.timeout, p.timeoutFrom = s.RequestTimeout, FromOperator
	}
	if p.peer != nil {
		p.peerRules = s.Peer
	}
	r.applyRollout(p, s)
}

// effectivePolicy is p's failure policy and where it came from: the
// operator's settings, else what the plugin declared, else the default.
func (r *Relay) effectivePolicy(p *plugin, declared *api.FailurePolicy) (nri.FailurePolicy, string) {
	if s, ok := r.cfg.settingsFor(p); ok && s.FailurePolicy != nil {
		return *s.FailurePolicy, FromOperator
	}
	if declared != nil {
		return failurePolicyFrom(declared), FromPlugin
	}
	return r.cfg.FailurePolicy, FromDefault
}

// settingsFields are p's effective timeout and failure policy, and where
// each came from, and its scope when the operator limited it, for the
// "plugin connected" line.
func (p *plugin) settingsFields() logrus.Fields {
	f := logrus.Fields{
		"request_timeout": p.timeout, "request_timeout_from": p.timeoutFrom,
		"fail_request": p.policy.FailRequest, "keep_connected": p.policy.KeepConnected, "failure_policy_from": p.policyFrom,
	}
	if p.scoped() {
		f["allow"] = p.allow.Names()
	}
	return f
}
