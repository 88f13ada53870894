// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"os"

	refapi "github.com/containerd/nri/pkg/api"

	"github.com/nrikit/nrikit/api"
)

// optionals compares the optional-value constructors, for every argument
// form, and their Get accessors.
func optionals(r *report) {
	s, n := "v", (*string)(nil)
	r.check("String", "value", sameMessage(api.String("v"), refapi.String("v")))
	r.check("String", "pointer", sameMessage(api.String(&s), refapi.String(&s)))
	r.check("String", "nil pointer", sameMessage(api.String(n), refapi.String(n)))
	r.check("String", "optional", sameMessage(api.String(api.String("v")), refapi.String(refapi.String("v"))))
	r.check("String", "nil optional", sameMessage(api.String((*api.OptionalString)(nil)), refapi.String((*refapi.OptionalString)(nil))))
	r.check("String.Get", "set", sameValue(api.String("v").Get(), refapi.String("v").Get()))
	r.check("String.Get", "nil", sameValue((*api.OptionalString)(nil).Get(), (*refapi.OptionalString)(nil).Get()))

	l := []string{"a", "b"}
	r.check("RepeatedString", "value", sameMessage(api.RepeatedString(l), refapi.RepeatedString(l)))
	r.check("RepeatedString", "pointer", sameMessage(api.RepeatedString(&l), refapi.RepeatedString(&l)))
	r.check("RepeatedString", "nil list", sameMessage(api.RepeatedString([]string(nil)), refapi.RepeatedString([]string(nil))))
	r.check("RepeatedString.Get", "set", sameValue(api.RepeatedString(l).Get(), refapi.RepeatedString(l).Get()))

	i, i32, u32, i64, u64, b := 7, int32(-3), uint32(9), int64(-1<<40), uint64(1<<63), true
	r.check("Int", "value", sameMessage(api.Int(i), refapi.Int(i)))
	r.check("Int", "pointer", sameMessage(api.Int(&i), refapi.Int(&i)))
	r.check("Int", "nil pointer", sameMessage(api.Int((*int)(nil)), refapi.Int((*int)(nil))))
	r.check("Int.Get", "set", sameValue(api.Int(i).Get(), refapi.Int(i).Get()))
	r.check("Int32", "value", sameMessage(api.Int32(i32), refapi.Int32(i32)))
	r.check("Int32", "pointer", sameMessage(api.Int32(&i32), refapi.Int32(&i32)))
	r.check("Int32.Get", "set", sameValue(api.Int32(i32).Get(), refapi.Int32(i32).Get()))
	r.check("UInt32", "value", sameMessage(api.UInt32(u32), refapi.UInt32(u32)))
	r.check("UInt32", "pointer", sameMessage(api.UInt32(&u32), refapi.UInt32(&u32)))
	r.check("UInt32.Get", "set", sameValue(api.UInt32(u32).Get(), refapi.UInt32(u32).Get()))
	r.check("Int64", "int64", sameMessage(api.Int64(i64), refapi.Int64(i64)))
	r.check("Int64", "int", sameMessage(api.Int64(i), refapi.Int64(i)))
	r.check("Int64", "uint64", sameMessage(api.Int64(u64), refapi.Int64(u64)))
	r.check("Int64", "*int64", sameMessage(api.Int64(&i64), refapi.Int64(&i64)))
	r.check("Int64", "*uint64", sameMessage(api.Int64(&u64), refapi.Int64(&u64)))
	r.check("Int64", "nil *int64", sameMessage(api.Int64((*int64)(nil)), refapi.Int64((*int64)(nil))))
	r.check("Int64.Get", "set", sameValue(api.Int64(i64).Get(), refapi.Int64(i64).Get()))
	r.check("UInt64", "uint64", sameMessage(api.UInt64(u64), refapi.UInt64(u64)))
	r.check("UInt64", "int64", sameMessage(api.UInt64(i64), refapi.UInt64(i64)))
	r.check("UInt64", "uint", sameMessage(api.UInt64(uint(3)), refapi.UInt64(uint(3))))
	r.check("UInt64", "*int64", sameMessage(api.UInt64(&i64), refapi.UInt64(&i64)))
	r.check("UInt64", "*uint64", sameMessage(api.UInt64(&u64), refapi.UInt64(&u64)))
	r.check("UInt64.Get", "set", sameValue(api.UInt64(u64).Get(), refapi.UInt64(u64).Get()))
	r.check("Bool", "value", sameMessage(api.Bool(b), refapi.Bool(b)))
	r.check("Bool", "pointer", sameMessage(api.Bool(&b), refapi.Bool(&b)))
	r.check("Bool", "nil pointer", sameMessage(api.Bool((*bool)(nil)), refapi.Bool((*bool)(nil))))
	r.check("Bool.Get", "set", sameValue(api.Bool(false).Get(), refapi.Bool(false).Get()))

	m := os.FileMode(0o640) | os.ModeDevice
	r.check("FileMode", "value", sameMessage(api.FileMode(m), refapi.FileMode(m)))
	r.check("FileMode", "pointer", sameMessage(api.FileMode(&m), refapi.FileMode(&m)))
	r.check("FileMode", "uint32", sameMessage(api.FileMode(uint32(0o600)), refapi.FileMode(uint32(0o600))))
	r.check("FileMode", "nil pointer", sameMessage(api.FileMode((*os.FileMode)(nil)), refapi.FileMode((*os.FileMode)(nil))))
	r.check("FileMode.Get", "set", sameValue(api.FileMode(m).Get(), refapi.FileMode(m).Get()))

	r.check("removal markers", "all", errors.Join(
		sameValue(api.MarkForRemoval("k"), refapi.MarkForRemoval("k")),
		sameValue(api.ClearRemovalMarker("-k"), refapi.ClearRemovalMarker("-k")),
		sameValue(api.ClearRemovalMarker("k"), refapi.ClearRemovalMarker("k")),
		sameValue(api.ClearRemovalMarker(""), refapi.ClearRemovalMarker("")),
		sameMarked(api.IsMarkedForRemoval, refapi.IsMarkedForRemoval, "-k", "k", "", "-", "--k"),
	))
}

func sameMarked(ours, theirs func(string) (string, bool), keys ...string) error {
	var errs []error
	for _, k := range keys {
		ok1, m1 := ours(k)
		ok2, m2 := theirs(k)
		errs = append(errs, sameValue([]any{ok1, m1}, []any{ok2, m2}))
	}
	return errors.Join(errs...)
}
