// SPDX-License-Identifier: Apache-2.0

package api

import (
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
)

func TestOptionalConstructors(t *testing.T) {
	s, i, i32, u32, i64, u64, b, m := "x", -7, int32(-3), uint32(3), int64(-1<<40), uint64(1<<63), true, os.FileMode(0o640)
	l := []string{"a"}
	for _, c := range []struct {
		name      string
		got, want proto.Message
	}{
		{"String value", String("x"), &OptionalString{Value: "x"}},
		{"String pointer", String(&s), &OptionalString{Value: "x"}},
		{"String optional", String(&OptionalString{Value: "x"}), &OptionalString{Value: "x"}},
		{"RepeatedString value", RepeatedString(l), &OptionalRepeatedString{Value: l}},
		{"RepeatedString pointer", RepeatedString(&l), &OptionalRepeatedString{Value: l}},
		{"Int value", Int(i), &OptionalInt{Value: -7}},
		{"Int pointer", Int(&i), &OptionalInt{Value: -7}},
		{"Int32 pointer", Int32(&i32), &OptionalInt32{Value: -3}},
		{"UInt32 pointer", UInt32(&u32), &OptionalUInt32{Value: 3}},
		{"Int64 int64", Int64(i64), &OptionalInt64{Value: i64}},
		{"Int64 int", Int64(i), &OptionalInt64{Value: -7}},
		{"Int64 *uint64", Int64(&u64), &OptionalInt64{Value: int64(u64)}},
		{"UInt64 uint64", UInt64(u64), &OptionalUInt64{Value: u64}},
		{"UInt64 *int64", UInt64(&i64), &OptionalUInt64{Value: uint64(i64)}},
		{"UInt64 uint", UInt64(uint(5)), &OptionalUInt64{Value: 5}},
		{"Bool pointer", Bool(&b), &OptionalBool{Value: true}},
		{"Bool false", Bool(false), &OptionalBool{}},
		{"FileMode value", FileMode(m), &OptionalFileMode{Value: 0o640}},
		{"FileMode pointer", FileMode(&m), &OptionalFileMode{Value: 0o640}},
		{"FileMode uint32", FileMode(uint32(0o600)), &OptionalFileMode{Value: 0o600}},
	} {
		if !proto.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestOptionalUnset: a nil pointer or nil optional gives nil (unset), and
// Get of nil gives nil.
func TestOptionalUnset(t *testing.T) {
	if String((*string)(nil)) != nil || String((*OptionalString)(nil)) != nil ||
		RepeatedString((*[]string)(nil)) != nil || Int((*int)(nil)) != nil ||
		Int32((*int32)(nil)) != nil || UInt32((*uint32)(nil)) != nil ||
		Int64((*int64)(nil)) != nil || Int64((*uint64)(nil)) != nil ||
		UInt64((*uint64)(nil)) != nil || Bool((*bool)(nil)) != nil ||
		FileMode((*os.FileMode)(nil)) != nil || FileMode((*OptionalFileMode)(nil)) != nil {
		t.Error("a nil argument gave a set optional")
	}
	if (*OptionalString)(nil).Get() != nil || (*OptionalRepeatedString)(nil).Get() != nil ||
		(*OptionalInt)(nil).Get() != nil || (*OptionalInt32)(nil).Get() != nil ||
		(*OptionalUInt32)(nil).Get() != nil || (*OptionalInt64)(nil).Get() != nil ||
		(*OptionalUInt64)(nil).Get() != nil || (*OptionalBool)(nil).Get() != nil ||
		(*OptionalFileMode)(nil).Get() != nil {
		t.Error("Get of an unset optional is not nil")
	}
}

// TestOptionalCopies: the constructors and Get copy, so changing what was
// passed in or got out leaves the optional alone.
func TestOptionalCopies(t *testing.T) {
	l := []string{"a", "b"}
	o := RepeatedString(l)
	l[0] = "changed"
	got := o.Get()
	(*got)[1] = "changed"
	if o.Value[0] != "a" || o.Value[1] != "b" {
		t.Errorf("optional list shares memory: %v", o.Value)
	}
	i := 5
	oi := Int(&i)
	i = 6
	*oi.Get() = 7
	if oi.Value != 5 {
		t.Errorf("optional int = %d, want 5", oi.Value)
	}
	src := String("s")
	if c := String(src); c == src {
		t.Error("String(optional) returned its argument, not a copy")
	}
	if v := *FileMode(os.FileMode(0o755) | os.ModeDir).Get(); v != os.FileMode(0o755)|os.ModeDir {
		t.Errorf("FileMode.Get = %v", v)
	}
}
