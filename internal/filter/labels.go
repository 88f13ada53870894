// SPDX-License-Identifier: Apache-2.0

// Label requirements: key=value, key!=value, key, !key.

package filter

import (
	"errors"
	"fmt"
	"strings"
)

// labelOp is what a requirement asks of a label.
type labelOp uint8

const (
	labelEquals    labelOp = iota // key=value (or key==value): present with that value
	labelNotEquals                // key!=value: absent, or with another value
	labelExists                   // key: present, any value
	labelAbsent                   // !key: absent
)

// labelRequirement is one entry of pod_labels.
type labelRequirement struct {
	op         labelOp
	key, value string
}

// parseLabel reads one requirement, as Kubernetes' equality-based
// selectors spell them.
func parseLabel(s string) (labelRequirement, error) {
	if strings.TrimSpace(s) == "" {
		return labelRequirement{}, errors.New("empty selector")
	}
	if strings.ContainsAny(s, " \t\n\r") {
		return labelRequirement{}, fmt.Errorf("selector %q has white space", s)
	}
	var r labelRequirement
	switch {
	case strings.Contains(s, "!="):
		r.op = labelNotEquals
		r.key, r.value, _ = strings.Cut(s, "!=")
	case strings.Contains(s, "="):
		r.op = labelEquals
		r.key, r.value, _ = strings.Cut(s, "=")
		r.value = strings.TrimPrefix(r.value, "=") // key==value
	case strings.HasPrefix(s, "!"):
		r.op, r.key = labelAbsent, s[1:]
	default:
		r.op, r.key = labelExists, s
	}
	switch {
	case r.key == "" && r.op == labelAbsent:
		return labelRequirement{}, fmt.Errorf("selector %q: '!' without a key", s)
	case r.key == "":
		return labelRequirement{}, fmt.Errorf("selector %q: '=' without a key", s)
	case strings.ContainsAny(r.key, "!="):
		return labelRequirement{}, fmt.Errorf("selector %q: key %q holds '!' or '='", s, r.key)
	case strings.ContainsAny(r.value, "!="):
		return labelRequirement{}, fmt.Errorf("selector %q: value %q holds '!' or '='", s, r.value)
	}
	return r, nil
}

// holds tells whether labels meet the requirement.
func (r labelRequirement) holds(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case labelEquals:
		return ok && v == r.value
	case labelNotEquals:
		return !ok || v != r.value
	case labelExists:
		return ok
	default:
		return !ok
	}
}
