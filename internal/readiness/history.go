// SPDX-License-Identifier: Apache-2.0

// The last thing that happened to each plugin that left or failed to join, for the stories of missing plugins.

package readiness

// pluginHistory is the last thing that happened to each plugin that left or
// failed to join, by id; bounded, the oldest forgotten first.
type pluginHistory struct {
	byID  map[string]Missing
	order []string
}

// historyKept bounds the plugins remembered: a local client can make up
// any number of plugin names.
const historyKept = 1024

func (h *pluginHistory) init() { h.byID = map[string]Missing{} }

func (h *pluginHistory) record(id string, m Missing) {
	if _, known := h.byID[id]; !known {
		h.order = append(h.order, id)
	}
	h.byID[id] = m
	for len(h.order) > historyKept {
		delete(h.byID, h.order[0])
		h.order = h.order[1:]
	}
}

func (h *pluginHistory) forget(id string) {
	if _, known := h.byID[id]; known {
		delete(h.byID, id)
		for i, o := range h.order {
			if o == id {
				h.order = append(h.order[:i:i], h.order[i+1:]...)
				break
			}
		}
	}
}

// latest is the most recent story of a plugin the required name matches.
func (h *pluginHistory) latest(name string) (Missing, bool) {
	var out Missing
	found := false
	for _, m := range h.byID {
		if Matches(name, m.Plugin) && (!found || m.Time.After(out.Time)) {
			out, found = m, true
		}
	}
	return out, found
}
