// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestRegisteringConnectionsAreBounded: a process that opens connections
// and never registers holds at most its share of places; beyond it, its
// connections are closed at once with a log line, while a plugin of another
// process still joins. Once its connections are gone, it is admitted again.
// Linux only: the share is per peer process, known from SO_PEERCRED.
func TestRegisteringConnectionsAreBounded(t *testing.T) {
	changes := newChangeLog()
	// The flood outlives the test's waits.
	e := newEnv(t, adaptation.WithRegistrationTimeout(time.Minute), adaptation.WithPluginChanges(changes.add))
	e.start()
	var flood []net.Conn
	for range adaptation.MaxRegisteringConnectionsPerPID {
		flood = append(flood, dialSocket(t, e.socket))
	}
	over := dialSocket(t, e.socket)
	_ = over.SetReadDeadline(time.Now().Add(waitLimit))
	if _, err := over.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("a connection over the share: read %v, want EOF (closed by the runtime)", err)
	}
	e.waitLoggedLine("nrikit: refused a plugin connection: too many connections registering (from its process, or plugins joining)", nil)

	e.external("10", "other", testplugin.Config{})
	e.waitPlugins("10-other")

	for _, c := range flood {
		c.Close()
	}
	// Each gives its place back before its failure is reported.
	changes.waitFor(t, "unregistered", len(flood))
	p := dialRaw(t, e.socket)
	p.register(1, "20", "again", api.MaskOf(api.Event_RUN_POD_SANDBOX))
	e.waitPlugins("10-other", "20-again")
	e.runPodThrough(t, p, "after-flood")
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("q")}))
}

// TestProcessOverItsShareHearsWhy: a process that starts more plugins than
// its share of places, each still joining, has the one over it refused in
// its RegisterPlugin reply, which names the bound; once one of the others
// has joined or failed, that plugin registers.
func TestProcessOverItsShareHearsWhy(t *testing.T) {
	changes := newChangeLog()
	// The plugins holding the places hang in Configure until closed.
	e := newEnv(t, adaptation.WithRequestTimeout(time.Minute), adaptation.WithPluginChanges(changes.add))
	e.start()
	ctx := context.Background()
	hang := testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeyConfigure: {Hang: true}}}
	var joining []*testplugin.Plugin
	t.Cleanup(func() {
		for _, p := range joining {
			p.Close()
		}
	})
	for i := range adaptation.MaxRegisteringConnectionsPerPID {
		p, err := testplugin.Start(ctx, dialSocket(t, e.socket), e.plugin(strconv.Itoa(10+i), "held", hang))
		if err != nil {
			t.Fatalf("plugin %d of the process, within its share: %v", i+1, err)
		}
		joining = append(joining, p)
	}

	_, err := testplugin.Start(ctx, dialSocket(t, e.socket), e.plugin("90", "over", testplugin.Config{}))
	want := fmt.Sprintf("process %d already has %d", os.Getpid(), adaptation.MaxRegisteringConnectionsPerPID)
	if err == nil || !strings.Contains(err.Error(), adaptation.ErrTooManyRegistering.Error()) || !strings.Contains(err.Error(), want) {
		t.Fatalf("RegisterPlugin over the process's share: %v, want refused with %q", err, want)
	}

	joining[0].Close()
	changes.waitFor(t, "10-held", 1) // its place is given back before that
	p, err := testplugin.Start(ctx, dialSocket(t, e.socket), e.plugin("90", "over", testplugin.Config{}))
	if err != nil {
		t.Fatalf("RegisterPlugin once a place was free: %v", err)
	}
	joining = append(joining, p)
	e.waitPluginsInclude("90-over")
}
