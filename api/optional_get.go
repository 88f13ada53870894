// SPDX-License-Identifier: Apache-2.0

package api

import "os"

// The Get accessors turn an optional back into the pointer form the OCI spec
// uses: nil when unset (a nil optional), otherwise a pointer to a fresh copy
// of the value, so the caller may keep or change it.

// Get returns a copy of the value, or nil when unset.
func (o *OptionalString) Get() *string { return getCopy(o, o.GetValue) }

// Get returns a copy of the list, or nil when unset.
func (o *OptionalRepeatedString) Get() *[]string {
	if o == nil {
		return nil
	}
	v := DupStringSlice(o.Value)
	return &v
}

// Get returns a copy of the value as an int, or nil when unset.
func (o *OptionalInt) Get() *int {
	return getCopy(o, func() int { return int(o.GetValue()) })
}

// Get returns a copy of the value, or nil when unset.
func (o *OptionalInt32) Get() *int32 { return getCopy(o, o.GetValue) }

// Get returns a copy of the value, or nil when unset.
func (o *OptionalUInt32) Get() *uint32 { return getCopy(o, o.GetValue) }

// Get returns a copy of the value, or nil when unset.
func (o *OptionalInt64) Get() *int64 { return getCopy(o, o.GetValue) }

// Get returns a copy of the value, or nil when unset.
func (o *OptionalUInt64) Get() *uint64 { return getCopy(o, o.GetValue) }

// Get returns a copy of the value, or nil when unset.
func (o *OptionalBool) Get() *bool { return getCopy(o, o.GetValue) }

// Get returns a copy of the mode, or nil when unset.
func (o *OptionalFileMode) Get() *os.FileMode {
	return getCopy(o, func() os.FileMode { return os.FileMode(o.GetValue()) })
}

// getCopy returns nil for a nil optional, else a pointer to value().
func getCopy[O any, V any](o *O, value func() V) *V {
	if o == nil {
		return nil
	}
	v := value()
	return &v
}
