// SPDX-License-Identifier: Apache-2.0

// Merging the replies to CreateContainer (Create).

package merge

import (
	"fmt"
	"slices"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/limits"
)

// Create merges CreateContainer replies, one plugin at a time, in call order.
type Create struct {
	req      *api.CreateContainerRequest
	id       string
	original *api.Container
	st       createState
	failed   error // the first reply that failed to merge; no more are taken
	// handedOut is set once Response has given the merged adjustment away:
	// a later Apply merges into a copy, so that a response once returned
	// never changes.
	handedOut bool
	// ownersHandedOut is handedOut for the ownership table (Owners).
	ownersHandedOut bool
	// rep merges the reply being applied; kept, with its claim functions,
	// for the next reply (reply).
	rep createReply
}

// createState is what replies change besides the request's container.
type createState struct {
	adjust *api.ContainerAdjustment
	updateState
}

// NewCreate starts merging for req. It keeps a clone of req.Container as the
// original for validators; req.Container itself is then updated in place by
// each applied reply, since later plugins must see earlier adjustments. A
// nil req or container is treated as empty.
func NewCreate(req *api.CreateContainerRequest) *Create {
	c := NewUnvalidatedCreate(req)
	c.original = cloneMsg(c.req.Container)
	return c
}

// NewUnvalidatedCreate is NewCreate for a creation that no validator will
// see: it keeps no original, which saves a deep copy of the container on
// every creation, and Original returns nil.
func NewUnvalidatedCreate(req *api.CreateContainerRequest) *Create {
	if req == nil {
		req = &api.CreateContainerRequest{}
	}
	if req.Container == nil {
		req.Container = &api.Container{}
	}
	return &Create{
		req: req,
		id:  req.Container.Id,
		st:  createState{adjust: &api.ContainerAdjustment{}, updateState: newUpdateState()},
	}
}

// Apply merges the reply of plugin ("idx-name"). A nil rsp, or a nil adjust,
// contributes nothing. Errors wrap ErrConflict (a *ConflictError) or
// ErrInvalidAdjustment. After an error the merge is over: the reply may be
// partly applied, Err returns the error, and every later Apply fails with
// ErrAbandoned.
func (c *Create) Apply(plugin string, rsp *api.CreateContainerResponse) error {
	if c.failed != nil {
		return fmt.Errorf("%w (%v)", ErrAbandoned, c.failed)
	}
	if err := checkPlugin(plugin); err != nil {
		return err
	}
	if isEmpty(rsp) {
		return nil
	}
	if c.req.Container == nil {
		c.req.Container = &api.Container{Id: c.id}
	}
	if c.handedOut {
		c.st.adjust, c.handedOut = cloneMsg(c.st.adjust), false
	}
	if c.ownersHandedOut {
		c.st.owners, c.ownersHandedOut = *c.st.owners.clone(), false
	}
	if err := c.apply(plugin, rsp); err != nil {
		c.failed = err
		return err
	}
	return nil
}

// apply follows the processing order of the reference: the adjustment,
// then the updates of other containers, then evictions.
func (c *Create) apply(plugin string, rsp *api.CreateContainerResponse) error {
	if err := outOfRange(plugin, limits.Adjustment(rsp.Adjust)); err != nil {
		return err
	}
	if err := c.reply(plugin).merge(rsp.Adjust); err != nil {
		return err
	}
	for _, u := range rsp.Update {
		if u != nil && u.ContainerId != "" && u.ContainerId == c.id {
			return invalid(plugin, "update of container %q during its creation", c.id)
		}
	}
	return c.st.apply(plugin, rsp.Update, rsp.Evict)
}

// LimitEvictions makes the merge drop evictions of containers that known
// does not have (IgnoredEvictions says how many, per reply); without it
// every container named is evicted. Evictions are merged once per
// container either way.
func (c *Create) LimitEvictions(known Containers) { c.st.known = known }

// IgnoredEvictions notes, one per reply, the evictions dropped because the
// runtime does not have their container; the caller may log them.
func (c *Create) IgnoredEvictions() []error { return slices.Clone(c.st.ignored) }

// Err is the error of the reply that failed to merge, nil if none did. The
// Response of a Create with an error is not to be used.
func (c *Create) Err() error { return c.failed }

// Response is the merged reply: the merged adjustment (never nil), the merged
// updates of other containers in order of first sight, and all evictions.
// The adjustment is the merger's own, handed over rather than copied: every
// part of it was copied from the replies as they were merged, and a later
// Apply works on a copy of it.
func (c *Create) Response() *api.CreateContainerResponse {
	c.handedOut = true
	return &api.CreateContainerResponse{
		Adjust: c.st.adjust,
		Update: c.st.updates.list(),
		Evict:  cloneList(c.st.evict),
	}
}

// Owners is the ownership record for validators, keyed by container ID. It
// covers the created container and every container updated so far. It
// shares the merger's tables, which a later Apply copies first; the caller
// must not change it.
func (c *Create) Owners() *api.OwningPlugins {
	c.ownersHandedOut = true
	return c.st.owners.proto()
}

// Original is the container as it was before any plugin saw it, nil for a
// NewUnvalidatedCreate. It is the merger's own copy, not cloned again: the
// caller must not change it.
func (c *Create) Original() *api.Container { return c.original }

// Discarded lists the updates dropped so far because they conflicted while
// allowing failure (ignore_failure); the caller may log them.
func (c *Create) Discarded() []error { return slices.Clone(c.st.dropped) }

// createReply merges one plugin's adjustment into the merged reply (out) and
// the request's container (ctr).
type createReply struct {
	claims
	owners *owners
	id     string
	out    *api.ContainerAdjustment
	ctr    *api.Container
}

// reply readies c.rep for plugin's reply. Its claim functions, made for
// the first reply, read the plugin, table and container from it: one
// reply's merge costs no allocation of its own.
func (c *Create) reply(plugin string) *createReply {
	r := &c.rep
	if r.claim == nil {
		r.claim = func(f api.Field, key string) error { return r.owners.claim(r.id, f, key, r.plugin) }
		r.clear = func(f api.Field, key string) { r.owners.clear(r.id, f, key, r.plugin) }
	}
	r.plugin, r.owners, r.id, r.out, r.ctr = plugin, &c.st.owners, c.id, c.st.adjust, c.req.Container
	return r
}

// merge applies an adjustment field by field in the order of the reference.
func (r *createReply) merge(a *api.ContainerAdjustment) error {
	if a == nil {
		return nil
	}
	steps := []func(*api.ContainerAdjustment) error{
		r.annotations, r.mounts, r.env, r.args, r.hooks, r.linux, r.rlimits, r.cdiDevices,
	}
	for _, step := range steps {
		if err := step(a); err != nil {
			return err
		}
	}
	return nil
}

func (r *createReply) linux(a *api.ContainerAdjustment) error {
	l := a.Linux
	if l == nil {
		return nil
	}
	steps := []func(*api.LinuxContainerAdjustment) error{
		r.devices, r.resources, r.cgroupsPath, r.oomScoreAdj, r.ioPriority, r.seccompPolicy,
		r.namespaces, r.sysctl, r.netDevices, r.scheduler, r.rdt, r.memoryPolicy,
	}
	for _, step := range steps {
		if err := step(l); err != nil {
			return err
		}
	}
	return nil
}

// outLinux and ctrLinux create the linux parts on first use, so that a reply
// that changes nothing there leaves them absent.
func (r *createReply) outLinux() *api.LinuxContainerAdjustment {
	if r.out.Linux == nil {
		r.out.Linux = &api.LinuxContainerAdjustment{}
	}
	return r.out.Linux
}

func (r *createReply) ctrLinux() *api.LinuxContainer {
	if r.ctr.Linux == nil {
		r.ctr.Linux = &api.LinuxContainer{}
	}
	return r.ctr.Linux
}
