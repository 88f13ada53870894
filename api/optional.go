// SPDX-License-Identifier: Apache-2.0

package api

import "os"

// The optional-value constructors take what the reference's take: the plain
// value, a pointer to it (nil gives nil: unset), or an optional of the same
// kind (copied; nil gives nil). They are generic where the reference takes
// interface{}: a call the reference would answer with nil because the
// argument has another type (api.Int64(5), whose constant is an int, works;
// api.UInt32(5) does not) fails to compile here instead of leaving the value
// silently unset.

// The argument types of the constructors, named so that another package
// can pass them on (adaptation offers the constructors under the
// reference's names too).
type (
	// StringValue is what String takes.
	StringValue interface {
		string | *string | *OptionalString
	}
	// RepeatedStringValue is what RepeatedString takes.
	RepeatedStringValue interface {
		[]string | *[]string | *OptionalRepeatedString
	}
	// IntValue is what Int takes.
	IntValue interface {
		int | *int | *OptionalInt
	}
	// Int32Value is what Int32 takes.
	Int32Value interface {
		int32 | *int32 | *OptionalInt32
	}
	// UInt32Value is what UInt32 takes.
	UInt32Value interface {
		uint32 | *uint32 | *OptionalUInt32
	}
	// Int64Value is what Int64 takes.
	Int64Value interface {
		int | uint | int64 | uint64 | *int64 | *uint64 | *OptionalInt64
	}
	// UInt64Value is what UInt64 takes.
	UInt64Value interface {
		int | uint | int64 | uint64 | *int64 | *uint64 | *OptionalUInt64
	}
	// BoolValue is what Bool takes.
	BoolValue interface {
		bool | *bool | *OptionalBool
	}
	// FileModeValue is what FileMode takes.
	FileModeValue interface {
		os.FileMode | *os.FileMode | uint32 | *OptionalFileMode
	}
)

// String makes an optional string from a string, a *string or an
// *OptionalString.
func String[T StringValue](v T) *OptionalString {
	switch x := any(v).(type) {
	case string:
		return &OptionalString{Value: x}
	case *string:
		return optionalOf(x, func(s string) *OptionalString { return &OptionalString{Value: s} })
	case *OptionalString:
		if x == nil {
			return nil
		}
		return &OptionalString{Value: x.Value}
	}
	return nil
}

// RepeatedString makes an optional string list from a []string, a *[]string
// or an *OptionalRepeatedString. The list is copied.
func RepeatedString[T RepeatedStringValue](v T) *OptionalRepeatedString {
	switch x := any(v).(type) {
	case []string:
		return &OptionalRepeatedString{Value: DupStringSlice(x)}
	case *[]string:
		return optionalOf(x, func(s []string) *OptionalRepeatedString { return &OptionalRepeatedString{Value: DupStringSlice(s)} })
	case *OptionalRepeatedString:
		if x == nil {
			return nil
		}
		return &OptionalRepeatedString{Value: DupStringSlice(x.Value)}
	}
	return nil
}

// Int makes an optional int from an int, an *int or an *OptionalInt.
func Int[T IntValue](v T) *OptionalInt {
	switch x := any(v).(type) {
	case int:
		return &OptionalInt{Value: int64(x)}
	case *int:
		return optionalOf(x, func(i int) *OptionalInt { return &OptionalInt{Value: int64(i)} })
	case *OptionalInt:
		if x == nil {
			return nil
		}
		return &OptionalInt{Value: x.Value}
	}
	return nil
}

// Int32 makes an optional int32 from an int32, an *int32 or an
// *OptionalInt32.
func Int32[T Int32Value](v T) *OptionalInt32 {
	switch x := any(v).(type) {
	case int32:
		return &OptionalInt32{Value: x}
	case *int32:
		return optionalOf(x, func(i int32) *OptionalInt32 { return &OptionalInt32{Value: i} })
	case *OptionalInt32:
		if x == nil {
			return nil
		}
		return &OptionalInt32{Value: x.Value}
	}
	return nil
}

// UInt32 makes an optional uint32 from a uint32, a *uint32 or an
// *OptionalUInt32.
func UInt32[T UInt32Value](v T) *OptionalUInt32 {
	switch x := any(v).(type) {
	case uint32:
		return &OptionalUInt32{Value: x}
	case *uint32:
		return optionalOf(x, func(i uint32) *OptionalUInt32 { return &OptionalUInt32{Value: i} })
	case *OptionalUInt32:
		if x == nil {
			return nil
		}
		return &OptionalUInt32{Value: x.Value}
	}
	return nil
}

// Int64 makes an optional int64 from an int, uint, int64 or uint64 (converted
// as Go converts them), an *int64, a *uint64 or an *OptionalInt64.
func Int64[T Int64Value](v T) *OptionalInt64 {
	mk := func(i int64) *OptionalInt64 { return &OptionalInt64{Value: i} }
	switch x := any(v).(type) {
	case int:
		return mk(int64(x))
	case uint:
		return mk(int64(x))
	case int64:
		return mk(x)
	case uint64:
		return mk(int64(x))
	case *int64:
		return optionalOf(x, mk)
	case *uint64:
		return optionalOf(x, func(u uint64) *OptionalInt64 { return mk(int64(u)) })
	case *OptionalInt64:
		if x == nil {
			return nil
		}
		return mk(x.Value)
	}
	return nil
}

// UInt64 makes an optional uint64 from an int, uint, int64 or uint64
// (converted as Go converts them), an *int64, a *uint64 or an
// *OptionalUInt64.
func UInt64[T UInt64Value](v T) *OptionalUInt64 {
	mk := func(u uint64) *OptionalUInt64 { return &OptionalUInt64{Value: u} }
	switch x := any(v).(type) {
	case int:
		return mk(uint64(x))
	case uint:
		return mk(uint64(x))
	case int64:
		return mk(uint64(x))
	case uint64:
		return mk(x)
	case *int64:
		return optionalOf(x, func(i int64) *OptionalUInt64 { return mk(uint64(i)) })
	case *uint64:
		return optionalOf(x, mk)
	case *OptionalUInt64:
		if x == nil {
			return nil
		}
		return mk(x.Value)
	}
	return nil
}

// Bool makes an optional bool from a bool, a *bool or an *OptionalBool.
func Bool[T BoolValue](v T) *OptionalBool {
	switch x := any(v).(type) {
	case bool:
		return &OptionalBool{Value: x}
	case *bool:
		return optionalOf(x, func(b bool) *OptionalBool { return &OptionalBool{Value: b} })
	case *OptionalBool:
		if x == nil {
			return nil
		}
		return &OptionalBool{Value: x.Value}
	}
	return nil
}

// FileMode makes an optional file mode from an os.FileMode, an
// *os.FileMode, a uint32 or an *OptionalFileMode. The mode travels as the
// 32 bits of os.FileMode.
func FileMode[T FileModeValue](v T) *OptionalFileMode {
	mk := func(m os.FileMode) *OptionalFileMode { return &OptionalFileMode{Value: uint32(m)} }
	switch x := any(v).(type) {
	case os.FileMode:
		return mk(x)
	case *os.FileMode:
		return optionalOf(x, mk)
	case uint32:
		return mk(os.FileMode(x))
	case *OptionalFileMode:
		if x == nil {
			return nil
		}
		return &OptionalFileMode{Value: x.Value}
	}
	return nil
}

// optionalOf applies mk to *p, or gives nil for a nil p.
func optionalOf[V any, O any](p *V, mk func(V) *O) *O {
	if p == nil {
		return nil
	}
	return mk(*p)
}
