// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"github.com/nrikit/nrikit/api"
)

// planCreateResources plans the resources of a CreateContainer adjustment
// with the reference generator's memory defaults, which runtimes and
// plugins written against it rely on:
//
//   - a memory limit of 0 means "no change", not "no limit": the limit (and
//     swap) of the spec stay;
//   - a new non-zero limit without a swap value of its own also sets swap to
//     the limit (no swap on top of the memory), so the spec never keeps an
//     old swap below the new limit, which runtimes refuse.
//
// The reference applies nothing else of the memory section (it even
// overrides an explicit swap with the limit); nrikit applies what the plugin
// set.
func planCreateResources(r *api.LinuxResources) (*resourcesPlan, error) {
	p, err := planResources(r)
	if err != nil || p == nil || p.res.Memory == nil {
		return p, err
	}
	m := p.res.Memory
	if m.Limit != nil && *m.Limit == 0 {
		m.Limit = nil
	}
	if m.Limit != nil && m.Swap == nil {
		m.Swap = ptr(*m.Limit)
	}
	return p, nil
}
