// SPDX-License-Identifier: Apache-2.0

// Evictions: each container once, and only containers the runtime has.

package merge

import (
	"fmt"

	"github.com/nrikit/nrikit/api"
)

// Containers is what the merge asks of the runtime's containers, as far as
// the caller knows them: whether container id exists.
type Containers interface {
	HasContainer(id string) bool
}

// evictions is the merged list of evictions: each container once, with
// the reason of the first plugin that asked, in order of first sight. A
// reply may ask to evict one container hundreds of thousands of times; the
// runtime gets one eviction of it.
type evictions struct {
	evict   []*api.ContainerEviction
	evicted map[string]struct{} // the IDs in evict; made on first use
	// known, when set, limits evictions to the containers it has; the
	// others are dropped, and ignored says so, one note per reply.
	known   Containers
	ignored []error
}

func (e *evictions) clone() evictions {
	c := evictions{evict: cloneList(e.evict), known: e.known, ignored: append([]error(nil), e.ignored...)}
	if e.evicted != nil {
		c.evicted = make(map[string]struct{}, len(e.evicted))
		for id := range e.evicted {
			c.evicted[id] = struct{}{}
		}
	}
	return c
}

// merge adds plugin's evictions that are new, and notes in ignored those
// dropped because the runtime does not have their container. A container
// is asked about once per reply at most: a repeated eviction is a lookup
// in a map.
func (e *evictions) merge(plugin string, in []*api.ContainerEviction) error {
	unknown := 0
	var asked map[string]struct{} // the unknown containers of this reply, asked about once
	for _, ev := range in {
		if ev == nil {
			return invalid(plugin, "nil eviction")
		}
		id := ev.ContainerId
		if _, dup := e.evicted[id]; dup {
			continue
		}
		if _, dup := asked[id]; dup {
			unknown++
			continue
		}
		if e.known != nil && !e.known.HasContainer(id) {
			if asked == nil {
				asked = map[string]struct{}{}
			}
			asked[id] = struct{}{}
			unknown++
			continue
		}
		if e.evicted == nil {
			e.evicted = map[string]struct{}{}
		}
		e.evicted[id] = struct{}{}
		e.evict = append(e.evict, cloneMsg(ev))
	}
	if unknown > 0 {
		e.ignored = append(e.ignored, fmt.Errorf("plugin %q: %d evictions of containers the runtime does not have ignored", plugin, unknown))
	}
	return nil
}
