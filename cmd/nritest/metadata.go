// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// The labels and annotations a user sets on the simulated pod and
// containers, for plugins that act on them.

// workloadMeta is the metadata flags.
type workloadMeta struct {
	podAnnotations, podLabels metaFlag
	ctrAnnotations, ctrLabels metaFlag
}

func (w *workloadMeta) register(fs *flag.FlagSet) {
	w.ctrAnnotations.perContainer, w.ctrLabels.perContainer = true, true
	fs.Var(&w.podAnnotations, "pod-annotation", "add the pod annotation `KEY=VALUE` (repeatable)")
	fs.Var(&w.podLabels, "pod-label", "add the pod label `KEY=VALUE` (repeatable; the pod has app=demo)")
	fs.Var(&w.ctrAnnotations, "container-annotation", "add the annotation `[CONTAINER:]KEY=VALUE` to both containers, or to app or sidecar only (repeatable)")
	fs.Var(&w.ctrLabels, "container-label", "add the label `[CONTAINER:]KEY=VALUE` to both containers, or to app or sidecar only (repeatable)")
}

// metaEntry is one KEY=VALUE for the pod, or for a container ("" for both).
type metaEntry struct{ container, key, value string }

// metaFlag is a repeatable KEY=VALUE flag, [CONTAINER:]KEY=VALUE when
// perContainer. The container prefix is unambiguous because label and
// annotation keys cannot hold a colon; the value may hold anything.
type metaFlag struct {
	perContainer bool
	entries      []metaEntry
}

var _ flag.Value = (*metaFlag)(nil)

func (f *metaFlag) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(f.entries))
	for i, e := range f.entries {
		s[i] = e.key + "=" + e.value
		if e.container != "" {
			s[i] = e.container + ":" + s[i]
		}
	}
	return strings.Join(s, " ")
}

func (f *metaFlag) Set(s string) error {
	kv, value, ok := strings.Cut(s, "=")
	if !ok {
		return errors.New("want KEY=VALUE")
	}
	e := metaEntry{key: kv, value: value}
	if c, key, found := strings.Cut(kv, ":"); found {
		if !f.perContainer {
			return fmt.Errorf("key %q holds a colon", kv)
		}
		if !slices.Contains(containerNames, c) {
			return fmt.Errorf("no container %q: want %s", c, strings.Join(containerNames, " or "))
		}
		e.container, e.key = c, key
	}
	switch {
	case e.key == "":
		return errors.New("empty key")
	case strings.ContainsFunc(e.key, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
		return fmt.Errorf("key %q holds a space or a control character", e.key)
	}
	f.entries = append(f.entries, e)
	return nil
}

// apply sets the entries meant for target (a container name, or "" for the
// pod) in m, later entries winning, and returns m; it allocates m only when
// there is something to set.
func (f *metaFlag) apply(m map[string]string, target string) map[string]string {
	for _, e := range f.entries {
		if e.container == "" || e.container == target {
			if m == nil {
				m = map[string]string{}
			}
			m[e.key] = e.value
		}
	}
	return m
}

// metaLines describes labels and annotations as "OWNER labels: k=v, ...",
// leaving out empty ones.
func metaLines(owner string, labels, annotations map[string]string) []string {
	var out []string
	for _, m := range []struct {
		what string
		kv   map[string]string
	}{{"labels", labels}, {"annotations", annotations}} {
		if len(m.kv) > 0 {
			out = append(out, fmt.Sprintf("%s %s: %s", owner, m.what, pairs(m.kv)))
		}
	}
	return out
}
