// SPDX-License-Identifier: Apache-2.0

// A plugin's socket connection (internal/pluginconn) as a plugin's transport.

package relay

import (
	"net"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/internal/launch"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/pluginconn"
)

// socketConn is a socket plugin's connection as its transport: the
// connection is its own, the lines the plugin wrote are its process's.
type socketConn struct{ *pluginconn.Conn }

// dialSocketConn sets up a plugin connection on trunk serving rs. name is
// the plugin's ID when known before registration, or nri.Unregistered.
func dialSocketConn(trunk net.Conn, proc *launch.Process, rs *runtimeService, cfg *Config, name string) (socketConn, error) {
	c, err := pluginconn.Dial(trunk, pluginconn.Config{
		Process:    proc,
		Register:   func(s *ttrpc.Server) { registerRuntimeServices(s, rs) },
		ServerOpts: cfg.ServerOpts,
		ClientOpts: cfg.ClientOpts,
		Log:        cfg.Log,
		Name:       name,
		PeerPID:    rs.peer.PID,
	})
	return socketConn{c}, err
}

// Output is the last lines the plugin's process wrote, nil for an
// external plugin.
func (c socketConn) Output() []nri.OutputLine { return outputLines(c.Process().LastLines(exitGrace)) }
