// SPDX-License-Identifier: Apache-2.0

// The last thing that happened to each plugin that left or failed to join, for the stories of missing plugins.

package adaptation

import "strings"

// pluginHistory is the last thing that happened to each plugin that left or
// failed to join, by id; bounded, the oldest forgotten first.
type pluginHistory struct {
	byID  map[string]MissingPlugin
	order []string
}

// historyKept bounds the plugins remembered: a local client can make up
// any number of plugin names.
const historyKept = 1024

func (h *pluginHistory) init() { h.byID = map[string]MissingPlugin{} }

func (h *pluginHistory) record(id string, m MissingPlugin) {
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
func (h *pluginHistory) latest(name string) (MissingPlugin, bool) {
	var out MissingPlugin
	found := false
	for _, m := range h.byID {
		if idMatches(name, m.Plugin) && (!found || m.Time.After(out.Time)) {
			out, found = m, true
		}
	}
	return out, found
}

// idMatches tells whether a required name ("name" or "idx-name") matches
// the plugin id "idx-name": the one rule the readiness gate matches
// required plugins by, active or in their history, as the default
// validator does.
func idMatches(name, id string) bool {
	if name == id {
		return true
	}
	idx, pname, ok := strings.Cut(id, "-")
	return ok && idx != "" && pname == name
}
