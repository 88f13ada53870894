package adaptation

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/launch"
)

// connectSocket registers, configures and synchronizes the plugin on trunk.
// cand and proc are set for pre-installed plugins, whose identity comes from
// their file name.
func (a *Adaptation) connectSocket(ctx context.Context, trunk net.Conn, cand *launch.Candidate, proc *launch.Process) error {
	rs := newRuntimeService(a, cand == nil)
	conn, err := dialSocketConn(trunk, proc, rs, &a.opts)
	if err != nil {
		_ = trunk.Close()
		if proc != nil {
			_ = proc.Kill()
		}
		return err
	}
	reg, err := rs.await(ctx, a.opts.registration, conn.lost())
	if err != nil {
		err = withExitStatus(err, proc)
		conn.close()
		return &PluginError{Plugin: candidateID(cand), Op: "register", Err: err}
	}
	kind, idx, name, config := kindExternal, reg.GetPluginIdx(), reg.GetPluginName(), ""
	if cand != nil {
		kind, idx, name, config = kindPreinstalled, cand.Index, cand.Name, cand.Config
	}
	p := newPlugin(idx, name, kind, conn.service(), conn, a.log)
	p.config = config
	rs.plugin.Store(p)
	p.log.WithField("nri_version", versionOrUnknown(reg.GetNRIVersion())).Debug("nrikit: plugin registered")
	return a.handshake(ctx, p)
}

// handshake configures and synchronizes a registered plugin, and makes it
// active. A failed phase drops it.
func (a *Adaptation) handshake(ctx context.Context, p *plugin) error {
	if err := a.configure(ctx, p); err != nil {
		p.close()
		return &PluginError{Plugin: p.id, Op: "configure", Err: err}
	}
	if err := a.synchronizeAndJoin(ctx, p); err != nil {
		p.close()
		return &PluginError{Plugin: p.id, Op: "synchronize", Err: err}
	}
	a.watch(ctx, p)
	p.log.WithField("kind", p.kind.String()).WithField("events", p.events.String()).Info("nrikit: plugin connected")
	return nil
}

func (a *Adaptation) configure(ctx context.Context, p *plugin) error {
	req := &api.ConfigureRequest{
		Config:              p.config,
		RuntimeName:         a.runtimeName,
		RuntimeVersion:      a.runtimeVersion,
		RegistrationTimeout: a.opts.registration.Milliseconds(),
		RequestTimeout:      a.opts.request.Milliseconds(),
		NRIVersion:          a.opts.nriVersion,
	}
	var rsp *api.ConfigureResponse
	err := p.invoke(ctx, a.opts.request, func(ctx context.Context) (err error) {
		rsp, err = p.svc.Configure(ctx, req)
		return err
	})
	if err != nil {
		return err
	}
	events, err := api.EventMask(rsp.GetEvents()).Effective()
	if err != nil {
		return err
	}
	p.events = events
	p.policy = failurePolicyFrom(rsp.GetFailurePolicy(), a.opts.failurePolicy)
	return nil
}

// watch drops the plugin when its connection is lost while idle.
func (a *Adaptation) watch(ctx context.Context, p *plugin) {
	lost := p.conn.lost()
	if lost == nil {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		select {
		case <-lost:
			a.drop(p, "connection lost")
		case <-p.closed:
		case <-ctx.Done():
		}
	}()
}

// exitGrace is how long a failed registration waits to learn how the
// plugin's process ended, which tells an operator more than a closed socket.
const exitGrace = 250 * time.Millisecond

func withExitStatus(err error, proc *launch.Process) error {
	if proc == nil {
		return err
	}
	t := time.NewTimer(exitGrace)
	defer t.Stop()
	select {
	case <-proc.Exited():
		if exitErr := proc.ExitErr(); exitErr != nil {
			return fmt.Errorf("%w (plugin process: %v)", err, exitErr)
		}
		return fmt.Errorf("%w (plugin process exited with status 0)", err)
	case <-t.C:
		return err
	}
}

func candidateID(c *launch.Candidate) string {
	if c == nil {
		return "unregistered"
	}
	return c.ID()
}

func versionOrUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}
