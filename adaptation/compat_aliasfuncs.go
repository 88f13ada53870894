// SPDX-License-Identifier: Apache-2.0

// The reference's pkg/adaptation helper functions.

package adaptation

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// The api helpers that the reference's pkg/adaptation also offers, under
// the same names, so that a glue calling nri.Int64(…) or
// nri.FromOCIMounts(…) keeps compiling. Each one is the api function.

// String is api.String.
func String[T api.StringValue](v T) *OptionalString { return api.String(v) }

// RepeatedString is api.RepeatedString.
func RepeatedString[T api.RepeatedStringValue](v T) *api.OptionalRepeatedString {
	return api.RepeatedString(v)
}

// Int is api.Int.
func Int[T api.IntValue](v T) *OptionalInt { return api.Int(v) }

// Int32 is api.Int32.
func Int32[T api.Int32Value](v T) *OptionalInt32 { return api.Int32(v) }

// UInt32 is api.UInt32.
func UInt32[T api.UInt32Value](v T) *OptionalUInt32 { return api.UInt32(v) }

// Int64 is api.Int64.
func Int64[T api.Int64Value](v T) *OptionalInt64 { return api.Int64(v) }

// UInt64 is api.UInt64.
func UInt64[T api.UInt64Value](v T) *OptionalUInt64 { return api.UInt64(v) }

// Bool is api.Bool.
func Bool[T api.BoolValue](v T) *OptionalBool { return api.Bool(v) }

// FileMode is api.FileMode.
func FileMode[T api.FileModeValue](v T) *OptionalFileMode { return api.FileMode(v) }

// FromOCIMounts is api.FromOCIMounts.
func FromOCIMounts(o []rspec.Mount) []*Mount { return api.FromOCIMounts(o) }

// FromOCIHooks is api.FromOCIHooks.
func FromOCIHooks(o *rspec.Hooks) *Hooks { return api.FromOCIHooks(o) }

// FromOCILinuxNamespaces is api.FromOCILinuxNamespaces.
func FromOCILinuxNamespaces(o []rspec.LinuxNamespace) []*LinuxNamespace {
	return api.FromOCILinuxNamespaces(o)
}

// FromOCILinuxDevices is api.FromOCILinuxDevices.
func FromOCILinuxDevices(o []rspec.LinuxDevice) []*LinuxDevice { return api.FromOCILinuxDevices(o) }

// FromOCILinuxResources is api.FromOCILinuxResources.
func FromOCILinuxResources(o *rspec.LinuxResources, annotations map[string]string) *LinuxResources {
	return api.FromOCILinuxResources(o, annotations)
}

// FromOCILinuxIOPriority is api.FromOCILinuxIOPriority.
func FromOCILinuxIOPriority(o *rspec.LinuxIOPriority) *LinuxIOPriority {
	return api.FromOCILinuxIOPriority(o)
}

// DupStringSlice is api.DupStringSlice.
func DupStringSlice(in []string) []string { return api.DupStringSlice(in) }

// DupStringMap is api.DupStringMap.
func DupStringMap(in map[string]string) map[string]string { return api.DupStringMap(in) }

// IsMarkedForRemoval is api.IsMarkedForRemoval.
func IsMarkedForRemoval(key string) (string, bool) { return api.IsMarkedForRemoval(key) }

// MarkForRemoval is api.MarkForRemoval.
func MarkForRemoval(key string) string { return api.MarkForRemoval(key) }
