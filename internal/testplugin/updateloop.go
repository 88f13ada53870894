// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/nrikit/nrikit/internal/syncx"
)

// RecordUpdateContainers is Record.Event for one UpdateContainers call of an
// UpdateLoop; its Container is the container named and its Outcome the
// result.
const RecordUpdateContainers = "UpdateContainers"

// Outcomes of an UpdateLoop call (Record.Outcome).
const (
	OutcomeOK     = "ok"     // the runtime applied the update
	OutcomeFailed = "failed" // the runtime reported the update failed (say, the container is gone)
	OutcomeError  = "error"  // the call itself failed; Record.Error says why
)

// UpdateLoop makes a plugin, once synchronized, call UpdateContainers in a
// loop, one call at a time, until its connection closes: the unsolicited
// updates of a resource-balancing plugin. Each call updates one container the
// plugin has heard of (Synchronize, CreateContainer) and not heard removed;
// with none known it waits for one. Every call is logged with its outcome.
type UpdateLoop struct {
	// SharesEvery makes every SharesEvery-th call change CPU shares; the
	// others name the container with nothing to change. 0 or 1: every call.
	SharesEvery int `json:"shares_every,omitempty"`
}

func (u *UpdateLoop) validate() error {
	if u != nil && u.SharesEvery < 0 {
		return fmt.Errorf("%w: update loop shares_every %d is negative", ErrConfig, u.SharesEvery)
	}
	return nil
}

// update is the loop's i-th update of container id.
func (u *UpdateLoop) update(i int, id string) Update {
	upd := Update{ContainerID: id}
	if u.SharesEvery <= 1 || i%u.SharesEvery == 0 {
		upd.CPUShares = uint64(2 + i%1000)
	}
	return upd
}

// updateLoop runs u until the connection closes, ctx is done or the event
// log is closed.
func (p *Plugin) updateLoop(ctx context.Context, u *UpdateLoop) {
	select {
	case <-p.h.synced:
	case <-p.mux.Done():
		return
	case <-ctx.Done():
		return
	}
	for i := 0; ; i++ {
		id, ok := p.h.known.await(ctx, p.mux.Done(), i)
		if !ok {
			return
		}
		failed, err := p.UpdateContainers(ctx, containerUpdates([]Update{u.update(i, id)}))
		if err != nil && (syncx.Closed(p.mux.Done()) || ctx.Err() != nil) {
			return // the connection's end, not the runtime's answer
		}
		if p.h.log.write(p.h.updateRecord(id, failed != nil, err)) != nil {
			return
		}
	}
}

// updateRecord is the log record of one UpdateLoop call.
func (h *Handler) updateRecord(id string, failed bool, err error) Record {
	rec := Record{Plugin: h.cfg.Name, Index: h.cfg.Index, PID: h.pid,
		Event: RecordUpdateContainers, Container: id, Outcome: OutcomeOK}
	switch {
	case err != nil:
		rec.Outcome, rec.Error = OutcomeError, err.Error()
	case failed:
		rec.Outcome = OutcomeFailed
	}
	return rec
}

// containerSet is the containers a plugin has heard created and not yet
// removed.
type containerSet struct {
	mu    sync.Mutex
	ids   []string
	added chan struct{} // closed and replaced when a container is added
}

func newContainerSet() *containerSet {
	return &containerSet{added: make(chan struct{})}
}

func (s *containerSet) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" || slices.Contains(s.ids, id) {
		return
	}
	s.ids = append(s.ids, id)
	close(s.added)
	s.added = make(chan struct{})
}

func (s *containerSet) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = slices.DeleteFunc(s.ids, func(known string) bool { return known == id })
}

// await returns the i-th known container (modulo their number), waiting
// for one while none is known; false once ctx or done ends the wait.
func (s *containerSet) await(ctx context.Context, done <-chan struct{}, i int) (string, bool) {
	for {
		s.mu.Lock()
		n, added := len(s.ids), s.added
		var id string
		if n > 0 {
			id = s.ids[i%n]
		}
		s.mu.Unlock()
		if n > 0 {
			return id, true
		}
		select {
		case <-added:
		case <-done:
			return "", false
		case <-ctx.Done():
			return "", false
		}
	}
}
