// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// operatorTimeout is the operator's request timeout for 10-dranet in these
// tests: the prize of whoever holds the name.
const operatorTimeout = 7 * time.Second

func dranetSettings() adaptation.Option {
	return adaptation.WithPluginSettings("10-dranet", adaptation.PluginSettings{RequestTimeout: adaptation.Duration(operatorTimeout)})
}

// preinstalledAgain checks that 10-dranet is active again as the runtime's
// pre-installed plugin, in a process other than pid, with the operator's
// settings; it returns its pid.
func preinstalledAgain(t *testing.T, e *env, pid int) int {
	t.Helper()
	infos := e.a.Plugins()
	if len(infos) != 1 || infos[0].Plugin != "10-dranet" || infos[0].Kind != "pre-installed" || infos[0].PID == pid || infos[0].PID == 0 ||
		time.Duration(infos[0].RequestTimeout) != operatorTimeout {
		t.Fatalf("active plugins %+v, want 10-dranet, pre-installed, a new process (not %d), with the operator's timeout", infos, pid)
	}
	return infos[0].PID
}

// TestCrashedPreinstalledPluginKeepsItsName: a pre-installed plugin that
// crashed keeps its name: an external client that registers under it is
// refused, hears why, and shows among Status' refused connections; then
// RestartPlugin launches the plugin again, which gets the operator's
// settings back.
func TestCrashedPreinstalledPluginKeepsItsName(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), dranetSettings())
	e.preinstall("10", "dranet", testplugin.Config{Events: "runpodsandbox", Behaviours: map[string]testplugin.Behaviour{"RunPodSandbox": {Exit: 3}}})
	e.start()
	e.waitPlugins("10-dranet")
	pid := e.a.Plugins()[0].PID
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("crash")}))
	e.waitPlugins()

	_, exited := e.externalExits("10", "dranet", testplugin.Config{})
	got := changes.waitFor(t, "10-dranet", 3) // joined, left (crashed), failed register
	refusal := got[2]
	if !strings.HasPrefix(refusal, "failed register: ") || !strings.Contains(refusal, adaptation.ErrPluginIDTaken.Error()) ||
		!strings.Contains(refusal, "pre-installed plugin 10-dranet, not running: RestartPlugin relaunches it") {
		t.Errorf("the claimant's registration: %q, want refused: the name is the crashed pre-installed plugin's", refusal)
	}
	waitExited(t, exited)
	if !refusedInStatus(e.a, "10-dranet", "not running") {
		t.Errorf("Status' refused connections %+v lack the claimant of 10-dranet", e.a.Status().RefusedConnections)
	}
	if len(e.a.Plugins()) != 0 {
		t.Fatalf("active plugins %+v, want none: the claimant must not have joined", e.a.Plugins())
	}

	must(t, e.a.RestartPlugin(context.Background(), "10-dranet"))
	preinstalledAgain(t, e, pid)
}

// TestRestartRacedByClaimsEndsWithTheRelaunchedPlugin: while a pre-installed
// plugin is restarted again and again, a local client claims its name a
// thousand times; every restart ends with the relaunched plugin, and no
// claim is ever accepted.
func TestRestartRacedByClaimsEndsWithTheRelaunchedPlugin(t *testing.T) {
	const claims = 1000
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), dranetSettings())
	e.preinstall("10", "dranet", testplugin.Config{})
	e.start()
	e.waitPlugins("10-dranet")
	pid := e.a.Plugins()[0].PID

	_, claimed := e.externalExits("10", "dranet", testplugin.Config{Claims: claims})
	restarts := 0
	for done := false; !done; {
		select {
		case <-claimed:
			done = true
		default:
			must(t, e.a.RestartPlugin(context.Background(), "10-dranet"))
			pid = preinstalledAgain(t, e, pid)
			restarts++
		}
	}
	summary := testplugin.Find(e.records(), "dranet", testplugin.ClaimsEvent)
	if len(summary) != 1 || summary[0].Reason != "registered=0 refused=1000" || !strings.Contains(summary[0].Error, adaptation.ErrPluginIDTaken.Error()) {
		t.Fatalf("the claims: %+v, want all %d refused, the name being the runtime's", summary, claims)
	}
	for _, c := range changes.all() {
		if c.Plugin == "10-dranet" && c.Kind == "external" && c.Change == adaptation.PluginJoined {
			t.Errorf("an external claimant joined as 10-dranet: %+v", c)
		}
	}
	t.Logf("%d restarts during the claims", restarts)
	must(t, e.a.RestartPlugin(context.Background(), "10-dranet"))
	preinstalledAgain(t, e, pid)
}

// TestRestartPluginNeedsAPluginOfThePluginPath: RestartPlugin refuses an
// external plugin (nrikit did not start it) and an ID that is nobody's.
func TestRestartPluginNeedsAPluginOfThePluginPath(t *testing.T) {
	e := newEnv(t)
	e.start()
	e.external("20", "ext", testplugin.Config{})
	e.waitPlugins("20-ext")
	if err := e.a.RestartPlugin(context.Background(), "20-ext"); !errors.Is(err, adaptation.ErrNotRestartable) {
		t.Errorf("restarting an external plugin: %v, want ErrNotRestartable", err)
	}
	if err := e.a.RestartPlugin(context.Background(), "30-none"); err == nil || !strings.Contains(err.Error(), "no such plugin") {
		t.Errorf("restarting a plugin that is nobody's: %v, want no such plugin", err)
	}
}

// TestSecondRestartWhileOneIsInProgressIsRefused: a restart of a plugin
// whose relaunched instance is still in its handshake refuses a second
// one, saying so; once the first failed (the instance hangs in Configure),
// RestartPlugin brings back the dropped plugin.
func TestSecondRestartWhileOneIsInProgressIsRefused(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(500*time.Millisecond))
	e.preinstall("10", "dranet", testplugin.Config{})
	e.start()
	e.waitPlugins("10-dranet")
	pid := e.a.Plugins()[0].PID
	registered := func() (n int) {
		for _, en := range e.logged(logrus.Fields{"plugin": "10-dranet"}) {
			if en.Message == "nrikit: plugin registered" {
				n++
			}
		}
		return n
	}
	before := registered()

	e.preinstall("10", "dranet", testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeyConfigure: {Hang: true}}})
	first := make(chan error, 1)
	go func() { first <- e.a.RestartPlugin(context.Background(), "10-dranet") }()
	e.waitLoggedWhere("the relaunched instance's registration", func(*logrus.Entry) bool { return registered() > before },
		logrus.Fields{"plugin": "10-dranet"})
	if err := e.a.RestartPlugin(context.Background(), "10-dranet"); err == nil || !strings.Contains(err.Error(), "a restart of it is in progress") {
		t.Errorf("a second RestartPlugin during the first: %v, want refused, a restart being in progress", err)
	}
	select {
	case err := <-first:
		if err == nil {
			t.Fatal("the restart of an instance that hangs in Configure succeeded")
		}
	case <-time.After(waitLimit):
		t.Fatal("the first restart did not return")
	}
	e.preinstall("10", "dranet", testplugin.Config{})
	must(t, e.a.RestartPlugin(context.Background(), "10-dranet"))
	if infos := e.a.Plugins(); len(infos) != 1 || infos[0].Plugin != "10-dranet" || infos[0].PID == pid {
		t.Errorf("active plugins %+v, want 10-dranet relaunched", infos)
	}
}

func waitExited(t *testing.T, exited <-chan struct{}) {
	t.Helper()
	select {
	case <-exited:
	case <-time.After(waitLimit):
		t.Fatal("the refused plugin did not exit")
	}
}

// refusedInStatus tells whether Status' refused connections hold a
// registration as plugin refused with a reason that says why.
func refusedInStatus(a *adaptation.Adaptation, plugin, why string) bool {
	for _, c := range a.Status().RefusedConnections.Last {
		if c.Plugin == plugin && c.Change == adaptation.PluginFailed && strings.Contains(c.Reason, why) {
			return true
		}
	}
	return false
}
