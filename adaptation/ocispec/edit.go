// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"maps"
	"slices"
	"strings"
)

// unmark splits the removal marker off an entry key. "" and "-" name
// nothing and are rejected.
func unmark(what, key string) (name string, remove bool, err error) {
	name, remove = strings.CutPrefix(key, "-")
	if name == "" {
		return "", false, invalid("%s key %q names nothing", what, key)
	}
	return name, remove, nil
}

// mapEdit is a checked change to a string-keyed map: deletions, then sets.
type mapEdit[V any] struct {
	del []string
	set map[string]V
}

// planMap converts a marked map. Keys are visited in order so that errors
// are deterministic.
func planMap[In, V any](what string, in map[string]In, conv func(In) (V, error)) (mapEdit[V], error) {
	var e mapEdit[V]
	for _, k := range slices.Sorted(maps.Keys(in)) {
		name, remove, err := unmark(what, k)
		if err != nil {
			return mapEdit[V]{}, err
		}
		if remove {
			e.del = append(e.del, name)
			continue
		}
		v, err := conv(in[k])
		if err != nil {
			return mapEdit[V]{}, within(what, name, err)
		}
		if e.set == nil {
			e.set = make(map[string]V)
		}
		e.set[name] = v
	}
	return e, nil
}

func (e mapEdit[V]) empty() bool { return len(e.del) == 0 && len(e.set) == 0 }

// apply creates the map only when something is set in it.
func (e mapEdit[V]) apply(m *map[string]V) {
	for _, k := range e.del {
		delete(*m, k)
	}
	if len(e.set) == 0 {
		return
	}
	if *m == nil {
		*m = make(map[string]V, len(e.set))
	}
	maps.Copy(*m, e.set)
}

// listEdit is a checked change to a keyed list: entries to drop by key, then
// entries to put, each replacing the list's entry with its key.
type listEdit[T any] struct {
	del []string
	set []T
}

// planList converts a marked list.
func planList[In, T any](what string, in []In, key func(In) string, conv func(In) (T, error)) (listEdit[T], error) {
	var e listEdit[T]
	for _, x := range in {
		name, remove, err := unmark(what, key(x))
		if err != nil {
			return listEdit[T]{}, err
		}
		if remove {
			e.del = append(e.del, name)
			continue
		}
		v, err := conv(x)
		if err != nil {
			return listEdit[T]{}, within(what, name, err)
		}
		e.set = append(e.set, v)
	}
	return e, nil
}

func (e listEdit[T]) empty() bool { return len(e.del) == 0 && len(e.set) == 0 }

// apply returns the edited list in one pass over each input, so that huge
// adjustments stay linear. A put replaces the first entry with its key, in
// place, and drops the later ones; a put with a new key is appended; a later
// put of the same key wins.
func (e listEdit[T]) apply(list []T, key func(T) string) []T {
	if e.empty() {
		return list
	}
	drop := make(map[string]bool, len(e.del))
	for _, k := range e.del {
		drop[k] = true
	}
	put := make(map[string]bool, len(e.set))
	for _, x := range e.set {
		put[key(x)] = true
	}
	out := make([]T, 0, len(list)+len(e.set))
	at := make(map[string]int, len(e.set))
	for _, x := range list {
		k := key(x)
		if drop[k] {
			continue
		}
		if put[k] {
			if _, seen := at[k]; seen {
				continue
			}
			at[k] = len(out)
		}
		out = append(out, x)
	}
	for _, x := range e.set {
		k := key(x)
		if i, ok := at[k]; ok {
			out[i] = x
			continue
		}
		at[k] = len(out)
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// replace is a checked new value for a field; ok=false leaves the field as
// it is, so a nil value can mean "clear".
type replace[T any] struct {
	ok bool
	v  T
}

func replaceWith[T any](v T) replace[T] { return replace[T]{ok: true, v: v} }

// to stores the new value in *dst, if there is one.
func (r replace[T]) to(dst *T) {
	if r.ok {
		*dst = r.v
	}
}
