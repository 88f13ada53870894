// SPDX-License-Identifier: Apache-2.0

// Why required plugins did not handle a container's creation: each one's story, for the default validator's rejection.

package readiness

import "fmt"

// Explain tells, for each named plugin that did not handle a container's
// creation, why: the story of one that is not active (never connected,
// left, failed to join, in its sync back-off, synchronizing), or that one
// that is active failed, timed out or was dropped in that creation. It
// knows the stories whether or not the gate is on.
func (r *Tracker) Explain(names []string) []string {
	out := make([]string, len(names))
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, name := range names {
		if p, ok := r.plugins.ActiveAs(name); ok {
			out[i] = fmt.Sprintf("%q (%s) is connected but did not answer this CreateContainer: it failed or timed out in it (see its log line)", name, p.ID)
			continue
		}
		m := r.storyLocked(name)
		m.Name = name
		out[i] = m.String()
	}
	return out
}
