package adaptation_test

import (
	"context"
	"io"
	"net"
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
