// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc/codes"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// TestRefusedRegistrationIsClosedAtOnce: a connection whose RegisterPlugin
// is refused gets the error reply and then EOF, not a connection left open
// until the registration timeout (an hour here).
func TestRefusedRegistrationIsClosedAtOnce(t *testing.T) {
	checkFDs(t)
	e := newEnv(t, adaptation.WithRegistrationTimeout(time.Hour))
	e.start()
	for _, c := range []struct {
		name, idx, plugin, want string
	}{
		{"bad index", "1x", "bad-index", "[0-9][0-9]"},
		{"bad name", "10", "bad name", "not one of"},
		{"oversized name", "10", strings.Repeat("n", api.MaxPluginNameLen+1), "more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := dialRaw(t, e.socket)
			p.send(p.runtime, ttrpcMessage(1, 1, 0, call(runtimeService, "RegisterPlugin",
				&api.RegisterPluginRequest{PluginName: c.plugin, PluginIdx: c.idx})))
			st := p.response(1).GetStatus()
			if codes.Code(st.GetCode()) != codes.Unknown || !strings.Contains(st.GetMessage(), c.want) {
				t.Fatalf("RegisterPlugin answered %v, want an error saying %q", st, c.want)
			}
			select {
			case <-p.m.Done():
			case <-time.After(waitLimit):
				t.Fatal("the runtime left the refused connection open")
			}
			if err := p.m.Err(); !errors.Is(err, io.EOF) {
				t.Fatalf("the connection ended with %v, want EOF", err)
			}
			entry := e.waitLogged(logrus.Fields{"plugin": "unregistered", "phase": "register"})
			if !strings.Contains(entry[len(entry)-1].Data["error"].(string), c.want) {
				t.Errorf("log line %v does not say why", entry[len(entry)-1].Data)
			}
			e.hook.Reset()
		})
	}
}
