// SPDX-License-Identifier: Apache-2.0

// Spec and Selector: a plugin's filter as configured, and as checked against pods.

package filter

import (
	"fmt"
	"slices"

	"github.com/nrikit/nrikit/api"
)

// Spec is a plugin's filter as the operator writes it (the plugin_settings
// filter table). Every part left empty takes any pod; the parts that are
// set must all hold.
type Spec struct {
	// Namespaces are globs on the pod's namespace; the pod's must match
	// one.
	Namespaces []string
	// ExcludeNamespaces are globs on the pod's namespace; the pod's must
	// match none. They win over Namespaces.
	ExcludeNamespaces []string
	// RuntimeHandlers are names; the pod's runtime handler must be one
	// ("" is the runtime's default handler, which no entry names).
	RuntimeHandlers []string
	// PodLabels are requirements on the pod's labels, all of which must
	// hold: "key=value" (or "key==value"), "key!=value", "key" (present),
	// "!key" (absent).
	PodLabels []string
	// PodAnnotations are globs on annotation keys; each must match a key
	// of the pod's annotations.
	PodAnnotations []string
}

// Empty tells whether the spec takes every pod.
func (s Spec) Empty() bool {
	return len(s.Namespaces)+len(s.ExcludeNamespaces)+len(s.RuntimeHandlers)+len(s.PodLabels)+len(s.PodAnnotations) == 0
}

// Selector decides whether a pod is in a plugin's scope. It is immutable
// and safe for concurrent use; a nil *Selector takes every pod.
type Selector struct {
	spec        Spec
	namespaces  []Glob
	exclude     []Glob
	handlers    []string
	labels      []labelRequirement
	annotations []Glob
}

// New checks spec and returns its Selector; nil, with no error, for an
// empty spec. An error names the key and the entry at fault, as
// "pod_labels[1]: selector \"=x\": '=' without a key".
func New(spec Spec) (*Selector, error) {
	if spec.Empty() {
		return nil, nil
	}
	s := &Selector{spec: cloneSpec(spec), handlers: slices.Clone(spec.RuntimeHandlers)}
	var err error
	if s.namespaces, err = globs("namespaces", spec.Namespaces); err != nil {
		return nil, err
	}
	if s.exclude, err = globs("exclude_namespaces", spec.ExcludeNamespaces); err != nil {
		return nil, err
	}
	if s.annotations, err = globs("pod_annotations", spec.PodAnnotations); err != nil {
		return nil, err
	}
	for i, h := range spec.RuntimeHandlers {
		if h == "" {
			return nil, fmt.Errorf("runtime_handlers[%d]: empty name", i)
		}
	}
	for i, l := range spec.PodLabels {
		r, err := parseLabel(l)
		if err != nil {
			return nil, fmt.Errorf("pod_labels[%d]: %w", i, err)
		}
		s.labels = append(s.labels, r)
	}
	return s, nil
}

func globs(key string, patterns []string) ([]Glob, error) {
	out := make([]Glob, 0, len(patterns))
	for i, p := range patterns {
		g, err := ParseGlob(p)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		out = append(out, g)
	}
	return out, nil
}

// Spec returns the spec the selector was made from (a copy).
func (s *Selector) Spec() Spec {
	if s == nil {
		return Spec{}
	}
	return cloneSpec(s.spec)
}

// Matches tells whether pod is in the scope; a nil pod has no namespace,
// labels, annotations or handler.
func (s *Selector) Matches(pod *api.PodSandbox) bool {
	if s == nil {
		return true
	}
	ns := pod.GetNamespace()
	if len(s.namespaces) > 0 && !anyMatch(s.namespaces, ns) {
		return false
	}
	if anyMatch(s.exclude, ns) {
		return false
	}
	if len(s.handlers) > 0 && !slices.Contains(s.handlers, pod.GetRuntimeHandler()) {
		return false
	}
	labels := pod.GetLabels()
	for _, r := range s.labels {
		if !r.holds(labels) {
			return false
		}
	}
	annotations := pod.GetAnnotations()
	for _, g := range s.annotations {
		if !anyKey(g, annotations) {
			return false
		}
	}
	return true
}

func anyMatch(globs []Glob, s string) bool {
	for _, g := range globs {
		if g.Match(s) {
			return true
		}
	}
	return false
}

func anyKey(g Glob, m map[string]string) bool {
	if g.re == nil {
		_, ok := m[g.pattern]
		return ok
	}
	for k := range m {
		if g.Match(k) {
			return true
		}
	}
	return false
}

func cloneSpec(s Spec) Spec {
	return Spec{
		Namespaces:        slices.Clone(s.Namespaces),
		ExcludeNamespaces: slices.Clone(s.ExcludeNamespaces),
		RuntimeHandlers:   slices.Clone(s.RuntimeHandlers),
		PodLabels:         slices.Clone(s.PodLabels),
		PodAnnotations:    slices.Clone(s.PodAnnotations),
	}
}
