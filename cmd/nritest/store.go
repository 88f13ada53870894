// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// store is the simulated runtime's own state: what a plugin that connects
// mid-run gets in its Synchronize snapshot, and which containers a plugin
// can update on its own.
type store struct {
	mu      sync.Mutex
	pods    []*api.PodSandbox
	ctrs    []*api.Container
	removed map[string]string // ID: name of the containers removed
	phase   string            // what the runtime is doing, see setPhase
	updates []UnsolicitedUpdate
	synced  []SyncUpdate // returned from Synchronize
}

// putPod adds or replaces a pod (a clone of it).
func (s *store) putPod(p *api.PodSandbox) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods = put(s.pods, proto.Clone(p).(*api.PodSandbox))
}

// putContainer adds or replaces a container (a clone of it).
func (s *store) putContainer(c *api.Container) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctrs = put(s.ctrs, proto.Clone(c).(*api.Container))
}

func (s *store) removePod(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods = slices.DeleteFunc(s.pods, func(p *api.PodSandbox) bool { return p.GetId() == id })
}

func (s *store) removeContainer(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctrs = slices.DeleteFunc(s.ctrs, func(c *api.Container) bool {
		if c.GetId() != id {
			return false
		}
		if s.removed == nil {
			s.removed = map[string]string{}
		}
		s.removed[id] = c.GetName()
		return true
	})
}

// sync is the runtime's SyncFn. Updates a plugin asks for at sync time are
// taken as an unsolicited one would be, and recorded.
func (s *store) sync(ctx context.Context, cb adaptation.SyncCB) error {
	s.mu.Lock()
	pods := cloneAll(s.pods)
	ctrs := cloneAll(s.ctrs)
	s.mu.Unlock()
	updates, err := cb(ctx, pods, ctrs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range updates {
		s.synced = append(s.synced, s.take(u))
	}
	return nil
}

type identified interface {
	proto.Message
	GetId() string
}

func put[T identified](list []T, v T) []T {
	if i := slices.IndexFunc(list, func(x T) bool { return x.GetId() == v.GetId() }); i >= 0 {
		list[i] = v
		return list
	}
	return append(list, v)
}

func cloneAll[T proto.Message](list []T) []T {
	out := make([]T, len(list))
	for i, v := range list {
		out[i] = proto.Clone(v).(T)
	}
	return out
}
