// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// creations subscribes a test plugin to pods and creations only, so that
// no validation follows a creation.
const creations = "runpodsandbox,createcontainer,startcontainer"

// createUnder runs a pod and creates one container in it under ctx.
func createUnder(t *testing.T, a *adaptation.Adaptation, ctx context.Context, id string) (*api.CreateContainerResponse, error) {
	t.Helper()
	pod := testPod(id)
	if err := a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	return a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(id+"-c", pod)})
}

// TestRequestTimeoutSettingKeepsASlowPlugin: a plugin that needs longer
// than the runtime's request timeout, given its own request_timeout,
// answers every creation and is kept, while one without the setting is
// dropped at the runtime's timeout. The first case has the figures
// (3 s plugins, 5 s setting, 2 s default) for two creations; the second
// answers 100 creations with figures scaled down (a 50 ms plugin, a 1 s
// setting, 20 ms default), without the plugin that has no setting: a 20 ms
// timeout would be too short for its Configure on a loaded machine.
func TestRequestTimeoutSettingKeepsASlowPlugin(t *testing.T) {
	for _, tc := range []struct {
		delay, setting, global time.Duration
		creations              int
		unset                  bool // with a plugin that has no setting
	}{
		{3 * time.Second, 5 * time.Second, adaptation.DefaultRequestTimeout, 2, true},
		{50 * time.Millisecond, time.Second, 20 * time.Millisecond, 100, false},
	} {
		t.Run(fmt.Sprintf("%v-plugin-%d-creations", tc.delay, tc.creations), func(t *testing.T) {
			e := newEnv(t, adaptation.WithRequestTimeout(tc.global),
				adaptation.WithPluginSettings("20-kept", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(tc.setting)}))
			if tc.unset {
				e.preinstall("10", "unset", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", tc.delay)})
			}
			e.preinstall("20", "kept", testplugin.Config{Events: creations, Behaviours: delayed("CreateContainer", tc.delay),
				Annotations: map[string]string{"kept": "yes"}})
			e.start()
			if tc.unset {
				e.waitPlugins("10-unset", "20-kept")
			} else {
				e.waitPlugins("20-kept")
			}
			info := pluginInfo(t, e.a)
			if got := info["20-kept"]; time.Duration(got.RequestTimeout) != tc.setting || got.RequestTimeoutFrom != adaptation.FromOperator {
				t.Errorf("20-kept: request timeout %v from %q, want %v from the operator", time.Duration(got.RequestTimeout), got.RequestTimeoutFrom, tc.setting)
			}
			if got, ok := info["10-unset"]; ok && (time.Duration(got.RequestTimeout) != tc.global || got.RequestTimeoutFrom != adaptation.FromDefault) {
				t.Errorf("10-unset: request timeout %v from %q, want %v by default", time.Duration(got.RequestTimeout), got.RequestTimeoutFrom, tc.global)
			}

			start := time.Now()
			for i := range tc.creations {
				rsp, err := createUnder(t, e.a, context.Background(), fmt.Sprintf("k%d", i))
				if err != nil {
					t.Fatalf("creation %d: %v", i, err)
				}
				if rsp.GetAdjust().GetAnnotations()["kept"] != "yes" {
					t.Fatalf("creation %d lacks the slow plugin's adjustment: %v", i, rsp.GetAdjust())
				}
			}
			e.waitPlugins("20-kept")
			if n := e.metrics.count("20-kept", api.Event_CREATE_CONTAINER, adaptation.OutcomeOK); n != tc.creations {
				t.Errorf("20-kept answered %d creations, want %d", n, tc.creations)
			}
			if !tc.unset {
				return
			}
			drops := e.logged(logrus.Fields{"plugin": "10-unset"})
			var dropped time.Duration
			for _, en := range drops {
				if en.Message == "nrikit: plugin dropped" {
					dropped = en.Time.Sub(start)
				}
			}
			// Dropped at its timeout, with a generous margin for a loaded machine.
			if dropped < tc.global-10*time.Millisecond || dropped > tc.global+time.Second {
				t.Errorf("10-unset dropped %v after the first creation began, want about %v", dropped, tc.global)
			}
		})
	}
}

// delayed is a behaviour that delays one event.
func delayed(event string, d time.Duration) map[string]testplugin.Behaviour {
	return map[string]testplugin.Behaviour{event: {Delay: d.String()}}
}

// pluginInfo is Plugins by plugin ID.
func pluginInfo(t *testing.T, a *adaptation.Adaptation) map[string]adaptation.PluginInfo {
	t.Helper()
	out := map[string]adaptation.PluginInfo{}
	for _, p := range a.Plugins() {
		out[p.Plugin] = p
	}
	return out
}

// TestEffectiveSettingsShowWhereTheyCameFrom: Plugins and the "plugin
// connected" line show each plugin's effective timeout and failure policy
// and whether the operator, the plugin or the runtime's default set them;
// the operator's failure policy wins over the plugin's own.
func TestEffectiveSettingsShowWhereTheyCameFrom(t *testing.T) {
	operator := adaptation.FailurePolicy{FailRequest: true, KeepConnected: true}
	e := newEnv(t,
		adaptation.WithDefaultFailurePolicy(adaptation.FailurePolicy{KeepConnected: true}),
		adaptation.WithPluginSettings("overridden", adaptation.PluginSettings{FailurePolicy: &operator}),
		adaptation.WithPluginSettings("10-timed", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(7 * time.Second)}),
		adaptation.WithPluginSettings("timed", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(time.Minute)}))
	declared := &testplugin.FailurePolicy{FailRequest: true}
	e.preinstall("10", "declared", testplugin.Config{FailurePolicy: declared})
	e.preinstall("10", "overridden", testplugin.Config{FailurePolicy: &testplugin.FailurePolicy{}})
	e.preinstall("10", "plain", testplugin.Config{})
	e.preinstall("10", "timed", testplugin.Config{})
	e.start()
	e.waitPlugins("10-declared", "10-overridden", "10-plain", "10-timed")

	type want struct {
		timeout     time.Duration
		timeoutFrom string
		policy      adaptation.FailurePolicy
		policyFrom  string
	}
	for id, w := range map[string]want{
		"10-declared":   {adaptation.DefaultRequestTimeout, adaptation.FromDefault, adaptation.FailurePolicy{FailRequest: true}, adaptation.FromPlugin},
		"10-overridden": {adaptation.DefaultRequestTimeout, adaptation.FromDefault, operator, adaptation.FromOperator},
		"10-plain":      {adaptation.DefaultRequestTimeout, adaptation.FromDefault, adaptation.FailurePolicy{KeepConnected: true}, adaptation.FromDefault},
		// The NN-name entry wins over the bare name's.
		"10-timed": {7 * time.Second, adaptation.FromOperator, adaptation.FailurePolicy{KeepConnected: true}, adaptation.FromDefault},
	} {
		got := pluginInfo(t, e.a)[id]
		if time.Duration(got.RequestTimeout) != w.timeout || got.RequestTimeoutFrom != w.timeoutFrom || got.FailurePolicy != w.policy || got.FailurePolicyFrom != w.policyFrom {
			t.Errorf("%s: PluginInfo %v from %q, policy %+v from %q; want %v from %q, %+v from %q", id,
				time.Duration(got.RequestTimeout), got.RequestTimeoutFrom, got.FailurePolicy, got.FailurePolicyFrom,
				w.timeout, w.timeoutFrom, w.policy, w.policyFrom)
		}
		line := e.waitLogged(logrus.Fields{"plugin": id, "request_timeout_from": w.timeoutFrom, "failure_policy_from": w.policyFrom})
		if line[0].Message != "nrikit: plugin connected" || line[0].Data["request_timeout"] != w.timeout ||
			line[0].Data["fail_request"] != w.policy.FailRequest || line[0].Data["keep_connected"] != w.policy.KeepConnected {
			t.Errorf("%s: %q %v, want the effective settings on the connected line", id, line[0].Message, line[0].Data)
		}
	}
}

// TestBadSettingsFailNew: New names the config path of a bad setting.
func TestBadSettingsFailNew(t *testing.T) {
	for _, tc := range []struct {
		cfg  adaptation.Config
		want string
	}{
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{
			"10-dranet": {RequestTimeout: adaptation.Duration(-time.Second)}}},
			`plugin_settings."10-dranet".request_timeout: must be positive, got -1s`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"not a name": {}}},
			`plugin_settings."not a name": not a plugin name or NN-name`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"10-": {}}},
			`plugin_settings."10-": not a plugin name or NN-name`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"100-dranet": {}}},
			`plugin_settings."100-dranet": not a plugin name or NN-name: it begins like NN-name, but "100" is not a two-digit index`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"1-dranet": {}}},
			`plugin_settings."1-dranet": not a plugin name or NN-name: it begins like NN-name, but "1" is not a two-digit index`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"10-dranet": {RequestTimeout: 1}}},
			`plugin_settings."10-dranet".request_timeout: 1ns is below 1ms`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"dranet": {RequestTimeout: adaptation.Duration(10000 * time.Hour)}}},
			`plugin_settings."dranet".request_timeout: 10000h0m0s is beyond 1h0m0s`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"dranet": {Peer: &adaptation.PeerRules{}}}},
			`plugin_settings."dranet".peer: binds the name to no peer`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"dranet": {Peer: &adaptation.PeerRules{Exe: []string{"dranet"}}}}},
			`plugin_settings."dranet".peer.exe: "dranet": not an absolute path`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"dranet": {Peer: &adaptation.PeerRules{Pods: []string{"[x/y"}}}}},
			`plugin_settings."dranet".peer.pods: "[x/y": syntax error in pattern`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"dranet": {Peer: &adaptation.PeerRules{UIDs: []uint32{4294967295}}}}},
			`plugin_settings."dranet".peer.uids: 4294967295 is beyond the largest id the kernel stores`},
		{adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{"dranet": {Allow: []string{"env", "environment"}}}},
			`plugin_settings."dranet".allow: "environment" is not a class of changes; the classes are annotations, mounts, env,`},
		{adaptation.Config{ExternalPlugins: "some"}, `external_plugins: "some" is not one of any, configured`},
		{adaptation.Config{RequestTimeout: 1}, `plugin_request_timeout: 1ns is below 1ms`},
		{adaptation.Config{RegistrationTimeout: adaptation.Duration(10000 * time.Hour)}, `plugin_registration_timeout: 10000h0m0s is beyond 1h0m0s`},
		{adaptation.Config{SyncTimeout: adaptation.Duration(time.Microsecond)}, `plugin_sync_timeout: 1µs is below 1ms`},
		{adaptation.Config{EventBudget: adaptation.Duration(-time.Second)}, `event_budget: must not be negative, got -1s`},
		{adaptation.Config{DeadlineReserve: adaptation.Duration(-time.Millisecond)}, `deadline_reserve: must not be negative, got -1ms`},
		{adaptation.Config{BudgetCheck: "sometimes"}, `budget_check: "sometimes" is not one of warn, refuse, off`},
		{adaptation.Config{EventBudget: adaptation.Duration(100 * time.Millisecond)}, `event_budget: must exceed deadline_reserve (100ms), got 100ms`},
	} {
		_, err := adaptation.New("rt", "v1", nil, nil, tc.cfg.Options()...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
	good := adaptation.Config{PluginSettings: map[string]adaptation.PluginSettings{
		"10-dranet": {RequestTimeout: adaptation.Duration(10 * time.Second)}, "my-plugin": {}}, BudgetCheck: adaptation.BudgetRefuse}
	if _, err := adaptation.New("rt", "v1", nil, nil, good.Options()...); err != nil {
		t.Errorf("New with good settings: %v", err)
	}
}

// TestSettingsKeysMatchAsDocumented: an NN-name entry applies to that index
// and name only, a bare name's to that name at any index; a plugin whose
// name is itself "10-dranet" (a valid name) does not get the entry of
// 10-dranet, whatever its index.
func TestSettingsKeysMatchAsDocumented(t *testing.T) {
	e := newEnv(t,
		adaptation.WithPluginSettings("10-dranet", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(7 * time.Second)}),
		adaptation.WithPluginSettings("audit", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(9 * time.Second)}))
	e.start()
	e.external("05", "10-dranet", testplugin.Config{})
	e.external("10", "dranet", testplugin.Config{})
	e.external("42", "audit", testplugin.Config{})
	e.waitPlugins("05-10-dranet", "10-dranet", "42-audit")
	for id, want := range map[string]time.Duration{"05-10-dranet": adaptation.DefaultRequestTimeout, "10-dranet": 7 * time.Second, "42-audit": 9 * time.Second} {
		if got := pluginInfo(t, e.a)[id]; time.Duration(got.RequestTimeout) != want {
			t.Errorf("%s: request timeout %v from %q, want %v", id, time.Duration(got.RequestTimeout), got.RequestTimeoutFrom, want)
		}
	}
}
