// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// Which plugin changed what, for the report. The merged response the
// runtime gets does not say, but nrikit keeps, for each container created,
// the owner of every field its merge computed (Adaptation.ContainerRecord):
// nritest turns those records on and reads them after each CreateContainer.
// --no-owners turns them off; changes are then not attributed.

// recordsKept is the number of container records nrikit keeps for nritest:
// more than any run has containers at once.
const recordsKept = 64

// recordedOwners says who set what in one CreateContainer of container id,
// in the shape validators are told (api.OwningPlugins): the created
// container's fields from its record, and the updates of other containers
// in rsp from theirs, those their records got from a creation since since.
func recordedOwners(a *adaptation.Adaptation, id string, rsp *api.CreateContainerResponse, since time.Time) *api.OwningPlugins {
	own := &api.OwningPlugins{Owners: map[string]*api.FieldOwners{}}
	if rec, ok := a.ContainerRecord(id); ok {
		addOwners(own, id, rec.Fields)
	}
	addUpdateOwners(own, a, rsp.GetUpdate(), adaptation.UpdateByCreation, since)
	return own
}

// updateOwners says who made the updates of an UpdateContainer or
// StopContainer response: the fields the records of the updated containers
// got from source (adaptation.UpdateByReply, adaptation.UpdateByStop)
// since since.
func updateOwners(a *adaptation.Adaptation, updates []*api.ContainerUpdate, source string, since time.Time) *api.OwningPlugins {
	own := &api.OwningPlugins{Owners: map[string]*api.FieldOwners{}}
	addUpdateOwners(own, a, updates, source, since)
	return own
}

// addUpdateOwners adds to own the owners of updates, from the records of
// the containers they update: the updates from source since since.
func addUpdateOwners(own *api.OwningPlugins, a *adaptation.Adaptation, updates []*api.ContainerUpdate, source string, since time.Time) {
	for _, u := range updates {
		id := u.GetContainerId()
		rec, ok := a.ContainerRecord(id)
		if !ok || own.Owners[id] != nil {
			continue // not recorded, or already added
		}
		for _, ur := range rec.Updates {
			if ur.Source == source && !ur.Time.Before(since) {
				addOwners(own, id, ur.Fields)
			}
		}
	}
}

// addOwners adds fields to ctr's table, as the merge writes it: a removed
// value's owner as "-plugin", several plugins' OCI hooks as "a,b".
func addOwners(own *api.OwningPlugins, ctr string, fields []adaptation.FieldOwner) {
	fo := own.Owners[ctr]
	if fo == nil {
		fo = &api.FieldOwners{Simple: map[int32]string{}, Compound: map[int32]*api.CompoundFieldOwners{}}
		own.Owners[ctr] = fo
	}
	for _, f := range fields {
		field, owner := api.Field_value[f.Field], f.Plugin
		if f.Removed {
			owner = "-" + owner
		}
		if f.Key == "" {
			if cur := fo.Simple[field]; cur != "" {
				owner = cur + "," + owner
			}
			fo.Simple[field] = owner
			continue
		}
		c := fo.Compound[field]
		if c == nil {
			c = &api.CompoundFieldOwners{Owners: map[string]string{}}
			fo.Compound[field] = c
		}
		c.Owners[f.Key] = owner
	}
}

// ownerOf is the plugin that set field f (entry key of a compound field, ""
// for a simple one) of container ctr, or removed it; "" when not known.
// Accumulating owners (OCI hooks) come as "10-a, 20-b".
func ownerOf(own *api.OwningPlugins, ctr string, f api.Field, key string) string {
	if own == nil || f == api.Field_None {
		return ""
	}
	fo := own.GetOwners()[ctr]
	owner := fo.GetSimple()[int32(f)]
	if key != "" {
		owner = fo.GetCompound()[int32(f)].GetOwners()[key]
	}
	return strings.ReplaceAll(strings.TrimPrefix(owner, "-"), ",", ", ")
}
