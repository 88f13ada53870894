// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"reflect"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// TestCloneSpec: the copy is equal, shares nothing, and keeps nil and empty
// apart.
func TestCloneSpec(t *testing.T) {
	s := mergedWant()
	s.Process.Env = []string{}
	s.Linux.Sysctl = map[string]string{}
	s.Windows = &rspec.Windows{CredentialSpec: map[string]any{"k": []any{"v"}}}
	c := cloneSpec(s)
	if !reflect.DeepEqual(c, s) {
		t.Fatalf("copy differs:\n%s", lineDiff(string(specJSON(t, s)), string(specJSON(t, c))))
	}
	if c.Process.Env == nil || c.Linux.Sysctl == nil {
		t.Error("empty became nil")
	}
	c.Process.Args[0] = "changed"
	*c.Linux.Resources.Memory.Limit = 1
	c.Annotations["k"] = "v"
	c.Mounts[0].Options[0] = "changed"
	c.Windows.CredentialSpec.(map[string]any)["k"].([]any)[0] = "changed"
	if s.Process.Args[0] == "changed" || *s.Linux.Resources.Memory.Limit == 1 ||
		s.Annotations["k"] == "v" || s.Mounts[0].Options[0] == "changed" ||
		s.Windows.CredentialSpec.(map[string]any)["k"].([]any)[0] == "changed" {
		t.Error("the copy shares memory with the original")
	}
}

// TestSpecTypesCopyable: every field of the spec is one the copy reaches, so
// it stays complete with a newer runtime-spec. (Interfaces hold decoded
// JSON, whose values the copy follows.)
func TestSpecTypesCopyable(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path, ty.Elem())
		case reflect.Map:
			walk(path+"[key]", ty.Key())
			walk(path, ty.Elem())
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				if !f.IsExported() {
					t.Errorf("%s.%s is unexported: the copy shares it", path, f.Name)
				}
				walk(path+"."+f.Name, f.Type)
			}
		case reflect.Chan, reflect.Func, reflect.UnsafePointer:
			t.Errorf("%s is a %s: the copy cannot be deep", path, ty.Kind())
		}
	}
	walk("Spec", reflect.TypeOf(rspec.Spec{}))
}
