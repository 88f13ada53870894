// SPDX-License-Identifier: Apache-2.0

// The one-line form of a Spec, for command lines: "runtime_handlers=nvidia;pod_labels=gpu=true,!spot".

package filter

import (
	"fmt"
	"strings"
)

// textKeys are the keys of the one-line form, as the configuration names
// them.
var textKeys = []string{"namespaces", "exclude_namespaces", "runtime_handlers", "pod_labels", "pod_annotations"}

// ParseText reads the one-line form of a Spec: "key=entry,entry;key=..."
// with the configuration's keys (namespaces, exclude_namespaces,
// runtime_handlers, pod_labels, pod_annotations). An entry holds no ',' or
// ';'; a label requirement keeps its own '=' ("pod_labels=tier=gpu"). The
// entries are checked by New, not here.
func ParseText(text string) (Spec, error) {
	var s Spec
	if strings.TrimSpace(text) == "" {
		return s, fmt.Errorf("empty filter: want KEY=ENTRY[,ENTRY...][;KEY=...] with KEY one of %s", strings.Join(textKeys, ", "))
	}
	for part := range strings.SplitSeq(text, ";") {
		key, entries, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !ok {
			return Spec{}, fmt.Errorf("%q is not KEY=ENTRY[,ENTRY...]", part)
		}
		list := s.list(key)
		if list == nil {
			return Spec{}, fmt.Errorf("unknown key %q: want one of %s", key, strings.Join(textKeys, ", "))
		}
		for e := range strings.SplitSeq(entries, ",") {
			*list = append(*list, strings.TrimSpace(e))
		}
	}
	return s, nil
}

// list is the part of s that key names, nil if none.
func (s *Spec) list(key string) *[]string {
	switch key {
	case "namespaces":
		return &s.Namespaces
	case "exclude_namespaces":
		return &s.ExcludeNamespaces
	case "runtime_handlers":
		return &s.RuntimeHandlers
	case "pod_labels":
		return &s.PodLabels
	case "pod_annotations":
		return &s.PodAnnotations
	}
	return nil
}

// String is the one-line form ParseText reads; "" for an empty spec.
func (s Spec) String() string {
	var parts []string
	for _, key := range textKeys {
		if list := *s.list(key); len(list) > 0 {
			parts = append(parts, key+"="+strings.Join(list, ","))
		}
	}
	return strings.Join(parts, ";")
}
