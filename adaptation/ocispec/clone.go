// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"reflect"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// cloneSpec deep-copies a spec. Apply works on the copy and commits it only
// when every step and every hook of the Applier succeeded, since hooks (the
// CDI injector, the resource checker) edit the spec they are given.
//
// The copy keeps nil and empty apart, unlike a trip through JSON, so that a
// successful Apply changes nothing it was not asked to change.
func cloneSpec(s *rspec.Spec) *rspec.Spec {
	c := reflect.New(reflect.TypeOf(*s)).Elem()
	deepCopy(c, reflect.ValueOf(*s))
	out := c.Interface().(rspec.Spec)
	return &out
}

// deepCopy copies src into dst, which must be settable and of src's type.
// Struct values are first copied whole, so a field the reflection cannot set
// (an unexported one) is shared rather than lost; the spec has none today.
func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopy(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Struct:
		dst.Set(src)
		for i := 0; i < src.NumField(); i++ {
			if f := dst.Field(i); f.CanSet() && !plain(f.Kind()) {
				deepCopy(f, src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if plain(src.Type().Elem().Kind()) {
			reflect.Copy(s, src)
		} else {
			for i := 0; i < src.Len(); i++ {
				deepCopy(s.Index(i), src.Index(i))
			}
		}
		dst.Set(s)
	case reflect.Array:
		for i := 0; i < src.Len(); i++ {
			deepCopy(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			m.SetMapIndex(it.Key(), v)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		v := reflect.New(src.Elem().Type()).Elem()
		deepCopy(v, src.Elem())
		dst.Set(v)
	default:
		dst.Set(src)
	}
}

// plain kinds hold no references: assigning copies them.
func plain(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Array, reflect.Map, reflect.Interface:
		return false
	}
	return true
}
