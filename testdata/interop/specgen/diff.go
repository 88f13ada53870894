// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// normalized is a spec as JSON values, with empty objects and lists and
// nulls dropped: a section present but empty and one absent mean the same to
// a runtime, and runtime-tools creates some empty ones as it goes.
func normalized(s *rspec.Spec) any {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(err)
	}
	return prune(v)
}

func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if x = prune(x); x == nil {
				delete(t, k)
			} else {
				t[k] = x
			}
		}
		if len(t) == 0 {
			return nil
		}
	case []any:
		for i := range t {
			t[i] = prune(t[i])
		}
		if len(t) == 0 {
			return nil
		}
	}
	return v
}

// delta is one place where two specs differ, with both values.
type delta struct {
	path string
	a, b any
}

// diffPaths lists where two specs differ: object members by dotted path
// (linux.resources.memory.swap; a key with a dot is quoted: annotations["a.b"]),
// lists as a whole where their lengths differ, else element by element
// (mounts[3]).
func diffPaths(a, b *rspec.Spec) []delta {
	var out []delta
	walkDiff("", normalized(a), normalized(b), &out)
	return out
}

func walkDiff(path string, a, b any, out *[]delta) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Sorted(maps.Keys(am))
		for _, k := range slices.Sorted(maps.Keys(bm)) {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			walkDiff(join(path, k), am[k], bm[k], out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			walkDiff(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i], out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, delta{path, a, b})
	}
}

func join(path, key string) string {
	switch {
	case strings.Contains(key, "."):
		return fmt.Sprintf("%s[%q]", path, key)
	case path == "":
		return key
	}
	return path + "." + key
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
