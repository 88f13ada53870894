// SPDX-License-Identifier: Apache-2.0

package merge

import "github.com/nrikit/nrikit/api"

// ContainerOwners is the ownership table of one container, for a record of
// who changed what: simple fields by api.Field, entries of compound fields
// by api.Field and key. An owner "-R" means that plugin R removed the
// value. The maps are the merger's own and may be nil; the caller must not
// change them.
type ContainerOwners struct {
	Simple   map[int32]string
	Compound map[int32]*api.CompoundFieldOwners
}

func (o *owners) containerOwners(id string) ContainerOwners {
	fo := o.lookup(id)
	if fo == nil {
		return ContainerOwners{}
	}
	return ContainerOwners{Simple: fo.simple, Compound: fo.compound}
}

// OwnersOf is the ownership table of container id (the created one, or one
// a reply updated). It shares the merger's maps, which a later Apply
// copies first; it allocates nothing.
func (c *Create) OwnersOf(id string) ContainerOwners {
	c.ownersHandedOut = true
	return c.st.owners.containerOwners(id)
}

// Updated lists the other containers the replies updated, in order of
// first sight. It shares the merger's list: the caller must not change it.
func (c *Create) Updated() []string { return c.st.updates.order }

// Updated lists the containers the replies updated, in order of first
// sight, the updated container included once a plugin touched it.
func (u *Update) Updated() []string { return u.st.updates.order }

// OwnersOf is the ownership table of container id as the replies merged so
// far left it. It shares the merger's maps: the caller must not change
// them, nor call Apply while it keeps them.
func (u *Update) OwnersOf(id string) ContainerOwners {
	return u.st.owners.containerOwners(id)
}

// Updated lists the containers the replies updated, in order of first
// sight. It shares the merger's list: the caller must not change it.
func (s *Stop) Updated() []string { return s.st.updates.order }

// OwnersOf is the ownership table of container id as the replies merged so
// far left it. It shares the merger's maps: the caller must not change
// them, nor call Apply while it keeps them.
func (s *Stop) OwnersOf(id string) ContainerOwners {
	return s.st.owners.containerOwners(id)
}

// UpdateOwners is the ownership table one plugin's update of one container
// makes on its own: which fields (and keys) it sets or clears. It fails
// as the merge of the update would.
func UpdateOwners(plugin string, u *api.ContainerUpdate) (ContainerOwners, error) {
	id := u.GetContainerId()
	m := NewUpdate(&api.UpdateContainerRequest{Container: &api.Container{Id: id}})
	if err := m.Apply(plugin, &api.UpdateContainerResponse{Update: []*api.ContainerUpdate{u}}); err != nil {
		return ContainerOwners{}, err
	}
	return m.OwnersOf(id), nil
}
