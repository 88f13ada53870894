// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"slices"

	"github.com/nrikit/nrikit/api"
)

// Update merges UpdateContainer replies, one plugin at a time.
//
// The updated container's entry starts from the resources the runtime asked
// for (req.LinuxResources), owned by nobody, so plugins may override them.
// After each reply the merged resources are written back into
// req.LinuxResources, which later plugins receive.
type Update struct {
	req *api.UpdateContainerRequest
	id  string
	st  updateState
}

// NewUpdate starts merging for req. A nil req is treated as empty.
func NewUpdate(req *api.UpdateContainerRequest) *Update {
	if req == nil {
		req = &api.UpdateContainerRequest{}
	}
	u := &Update{req: req, id: req.GetContainer().GetId(), st: newUpdateState()}
	u.st.updates.seed(u.id, req.LinuxResources)
	return u
}

// Apply merges the reply of plugin ("idx-name"); a nil rsp contributes
// nothing. It is all-or-nothing, like Create.Apply.
func (u *Update) Apply(plugin string, rsp *api.UpdateContainerResponse) error {
	if err := checkPlugin(plugin); err != nil {
		return err
	}
	if isEmpty(rsp) {
		return nil // nothing to merge, and nothing to snapshot for an undo
	}
	saved := u.st.clone()
	if err := u.st.apply(plugin, rsp.Update, rsp.Evict); err != nil {
		u.st = saved
		return err
	}
	if e := u.st.updates.entries[u.id]; e.touched {
		u.req.LinuxResources = cloneMsg(e.update.GetLinux().GetResources())
	}
	return nil
}

// LimitEvictions is Create.LimitEvictions for UpdateContainer's replies.
func (u *Update) LimitEvictions(known Containers) { u.st.known = known }

// IgnoredEvictions is Create.IgnoredEvictions for UpdateContainer's
// replies.
func (u *Update) IgnoredEvictions() []error { return slices.Clone(u.st.ignored) }

// Response lists the updates of other containers in order of first sight,
// then the updated container's entry, always last and always present.
//
// If no plugin touched the updated container, its entry carries the
// requested resources unchanged, with ignore_failure false. The reference
// puts a null entry there; a null entry cannot be encoded faithfully and
// makes every runtime special-case it, while "apply what you asked for" is
// what a runtime does in that case anyway.
func (u *Update) Response() *api.UpdateContainerResponse {
	list := slices.DeleteFunc(u.st.updates.list(), func(c *api.ContainerUpdate) bool {
		return c.ContainerId == u.id
	})
	return &api.UpdateContainerResponse{
		Update: append(list, u.st.updates.get(u.id)),
		Evict:  cloneList(u.st.evict),
	}
}

// Discarded lists the updates dropped because they conflicted while allowing
// failure (ignore_failure); the caller may log them.
func (u *Update) Discarded() []error { return slices.Clone(u.st.dropped) }
