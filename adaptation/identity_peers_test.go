// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// boundTo binds the plugin name key to peers.
func boundTo(key string, peer adaptation.PeerRules) adaptation.Option {
	return adaptation.WithPluginSettings(key, adaptation.PluginSettings{Peer: &peer})
}

// refusedAs waits for the nth change of plugin, a refused registration, and
// returns its reason, checking it matches want and is in Status' refused
// connections.
func refusedAs(t *testing.T, e *env, changes *changeLog, plugin string, nth int, want error, why string) string {
	t.Helper()
	reason := changes.waitFor(t, plugin, nth)[nth-1]
	if !strings.HasPrefix(reason, "failed register: ") || !strings.Contains(reason, want.Error()) || !strings.Contains(reason, why) {
		t.Errorf("%s: %q, want a refused registration (%v) saying %q", plugin, reason, want, why)
	}
	if !refusedInStatus(e.a, plugin, why) {
		t.Errorf("Status' refused connections %+v lack %s", e.a.Status().RefusedConnections, plugin)
	}
	return reason
}

// TestPeerBoundToAnotherUIDIsRefused: a plugin whose name is bound to a uid
// it does not run as is refused, hears why, and is named in the log at
// warning level; an unbound one joins beside it, and so does one bound to
// the uid and executable it has.
func TestPeerBoundToAnotherUIDIsRefused(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	other := uint32(os.Geteuid() + 4242)
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add),
		boundTo("10-bound", adaptation.PeerRules{UIDs: []uint32{other}}),
		boundTo("own", adaptation.PeerRules{UIDs: []uint32{uint32(os.Geteuid())}, Exe: []string{filepath.Dir(exe) + "/*"}}))
	e.start()
	_, exited := e.externalExits("10", "bound", testplugin.Config{})
	e.external("20", "free", testplugin.Config{})
	e.external("30", "own", testplugin.Config{})
	e.waitPlugins("20-free", "30-own")
	reason := refusedAs(t, e, changes, "10-bound", 1, adaptation.ErrPeerNotAllowed,
		fmt.Sprintf("uid %d is not one of uids [%d]", os.Geteuid(), other))
	if !strings.Contains(reason, `plugin_settings."10-bound".peer`) || !strings.Contains(reason, "exe "+exe) {
		t.Errorf("the refusal %q does not name the setting and the peer's executable", reason)
	}
	waitExited(t, exited)
	line := e.waitLoggedLine("nrikit: plugin dropped during register", logrus.Fields{"plugin": "10-bound"})
	if line[0].Level != logrus.WarnLevel {
		t.Errorf("the refusal is logged at %v, want warning", line[0].Level)
	}
	if got := pluginInfo(t, e.a)["30-own"]; got.Peer == nil || got.Peer.UID == nil || *got.Peer.UID != uint32(os.Geteuid()) ||
		got.Peer.Exe != exe || got.Peer.Rules == nil || got.SettingsKey != "own" {
		t.Errorf("30-own's PluginInfo: peer %+v, settings key %q; want its uid and executable, the rules it matched, key own", got.Peer, got.SettingsKey)
	}
}

// TestExternalPluginsConfigured: with external_plugins = "configured", a
// name without a plugin_settings entry is refused; an NN-name entry and a
// bare name's let theirs in.
func TestExternalPluginsConfigured(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithExternalPlugins(adaptation.ExternalConfigured),
		adaptation.WithPluginSettings("10-known", adaptation.PluginSettings{}),
		adaptation.WithPluginSettings("audit", adaptation.PluginSettings{}))
	e.start()
	e.external("20", "stranger", testplugin.Config{})
	e.external("10", "known", testplugin.Config{})
	e.external("42", "audit", testplugin.Config{})
	e.waitPlugins("10-known", "42-audit")
	refusedAs(t, e, changes, "20-stranger", 1, adaptation.ErrNotConfigured, `20-stranger has no entry (neither "20-stranger" nor "stranger")`)
	if st := e.a.Status().Settings; st.ExternalPlugins != adaptation.ExternalConfigured {
		t.Errorf("Status settings: external_plugins %q, want configured", st.ExternalPlugins)
	}
}

// podOfPlugin is a runtime's WithPeerIdentity for test plugins: the pod is
// read from the process, as a runtime reads its cgroup; a plugin named
// dranet runs in kube-system/dranet-x7, any other in default/web.
func podOfPlugin(_ context.Context, pid int) (adaptation.PeerIdentity, error) {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return adaptation.PeerIdentity{}, err
	}
	if bytes.Contains(cmdline, []byte("-dranet-")) {
		return adaptation.PeerIdentity{PodNamespace: "kube-system", PodName: "dranet-x7"}, nil
	}
	if bytes.Contains(cmdline, []byte("-lost-")) {
		return adaptation.PeerIdentity{}, errors.New("no cgroup for it")
	}
	return adaptation.PeerIdentity{PodNamespace: "default", PodName: "web"}, nil
}

// TestPeerBoundToPods: names bound to pods are resolved through the
// runtime's WithPeerIdentity: a plugin in a matching pod joins, one in
// another pod is refused naming it, and one whose pod the runtime cannot
// tell is refused saying why.
func TestPeerBoundToPods(t *testing.T) {
	changes := newChangeLog()
	pods := adaptation.PeerRules{Pods: []string{"kube-system/dranet-*"}}
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithPeerIdentity(podOfPlugin),
		boundTo("dranet", pods), boundTo("impostor", pods), boundTo("lost", pods))
	e.start()
	e.external("10", "dranet", testplugin.Config{})
	e.external("20", "impostor", testplugin.Config{})
	e.external("30", "lost", testplugin.Config{})
	e.waitPlugins("10-dranet")
	refusedAs(t, e, changes, "20-impostor", 1, adaptation.ErrPeerNotAllowed, `pod default/web matches none of pods ["kube-system/dranet-*"]`)
	refusedAs(t, e, changes, "30-lost", 1, adaptation.ErrPeerNotAllowed, "no cgroup for it")
	if got := pluginInfo(t, e.a)["10-dranet"]; got.Peer == nil || got.Peer.Pod != "kube-system/dranet-x7" {
		t.Errorf("10-dranet's peer %+v, want its pod kube-system/dranet-x7", got.Peer)
	}
}

// TestReplacementNeedsTheSameRules: a newcomer that would replace a bound
// plugin must match its rules, or it is refused and the plugin stays; a
// replacement is logged as a warning naming both peers.
func TestReplacementNeedsTheSameRules(t *testing.T) {
	var pod atomic.Pointer[string] // the runtime's answer, whoever asks
	inPod := func(p string) { pod.Store(&p) }
	resolve := func(context.Context, int) (adaptation.PeerIdentity, error) {
		ns, name, _ := strings.Cut(*pod.Load(), "/")
		return adaptation.PeerIdentity{PodNamespace: ns, PodName: name}, nil
	}
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), adaptation.WithPeerIdentity(resolve),
		boundTo("10-dranet", adaptation.PeerRules{Pods: []string{"kube-system/*"}}))
	e.start()
	inPod("kube-system/dranet-a")
	first := e.external("10", "dranet", testplugin.Config{})
	e.waitPlugins("10-dranet")

	inPod("default/intruder")
	e.external("10", "dranet", testplugin.Config{})
	refusedAs(t, e, changes, "10-dranet", 2, adaptation.ErrPeerNotAllowed, "pod default/intruder matches none of pods")
	if infos := e.a.Plugins(); len(infos) != 1 || infos[0].PID != first.Process.Pid {
		t.Fatalf("active plugins %+v, want the first instance still", infos)
	}

	inPod("kube-system/dranet-b")
	second := e.external("10", "dranet", testplugin.Config{})
	changes.waitFor(t, "10-dranet", 4) // joined, failed register, joined, left (replaced)
	line := e.waitLoggedLine("nrikit: plugin replaced by a new instance", logrus.Fields{"plugin": "10-dranet", "reason": "replaced"})
	if l := line[0]; l.Level != logrus.WarnLevel || l.Data["replaced_pid"] != first.Process.Pid || l.Data["new_pid"] != second.Process.Pid ||
		l.Data["replaced_pod"] != "kube-system/dranet-a" || l.Data["new_pod"] != "kube-system/dranet-b" || l.Data["new_uid"] != os.Geteuid() {
		t.Errorf("the replacement line: %v %v, want a warning naming both peers", l.Level, l.Data)
	}
	if infos := e.a.Plugins(); len(infos) != 1 || infos[0].PID != second.Process.Pid {
		t.Errorf("active plugins %+v, want the newcomer", infos)
	}
}

// TestUnmatchableBindingWarns: New warns of a name bound to what nothing
// here can tell (pods, without WithPeerIdentity), and no connection can
// then register under it.
func TestUnmatchableBindingWarns(t *testing.T) {
	changes := newChangeLog()
	e := newEnv(t, adaptation.WithPluginChanges(changes.add), boundTo("dranet", adaptation.PeerRules{Pods: []string{"kube-system/*"}}))
	line := e.waitLoggedMessage("nrikit: a plugin name is bound to what this OS or runtime cannot tell of a peer: no connection can register under it")
	if l := line[0]; l.Level != logrus.WarnLevel || l.Data["plugin_settings"] != "dranet" || fmt.Sprint(l.Data["unknown"]) != "[pods]" {
		t.Errorf("the warning: %v %v, want one naming dranet and pods", l.Level, l.Data)
	}
	e.start()
	e.external("10", "dranet", testplugin.Config{})
	refusedAs(t, e, changes, "10-dranet", 1, adaptation.ErrPeerNotAllowed, "the runtime does not tell a process's pod")
}
