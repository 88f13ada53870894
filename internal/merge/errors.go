// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// Sentinel errors. Every error returned by Apply wraps one of them (or
// api.ErrInvalidName for a malformed plugin name passed by the caller).
var (
	// ErrConflict: two plugins, or one plugin twice, claimed the same field or
	// entry. The error is a *ConflictError.
	ErrConflict = errors.New("nrikit: conflicting adjustments")
	// ErrInvalidAdjustment: a reply that cannot be merged at all (nil list
	// entries, empty keys, an update of the container being created, ...).
	ErrInvalidAdjustment = errors.New("nrikit: invalid adjustment")
	// ErrAbandoned: a Create merge took a reply after one failed to merge.
	// It does not wrap that failure, which belongs to another plugin.
	ErrAbandoned = errors.New("nrikit: merge abandoned after an earlier reply failed to merge")
)

// ConflictError reports a field or entry claimed twice.
type ConflictError struct {
	Field  api.Field
	Key    string // entry key of a compound field; empty for a simple field
	Owner  string // plugin that owns (or cleared) the field, "idx-name"
	Plugin string // plugin whose claim failed, "idx-name"
}

func (e *ConflictError) Error() string {
	what := fieldName(e.Field)
	if e.Key != "" {
		what += fmt.Sprintf(" %q", e.Key)
	}
	if e.Owner == e.Plugin {
		return fmt.Sprintf("plugin %q tried to set %s twice", e.Plugin, what)
	}
	return fmt.Sprintf("plugins %q and %q both tried to set %s", e.Owner, e.Plugin, what)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// invalid builds an ErrInvalidAdjustment naming the plugin at fault.
func invalid(plugin, format string, args ...any) error {
	return fmt.Errorf("%w: plugin %q: %s", ErrInvalidAdjustment, plugin, fmt.Sprintf(format, args...))
}

// outOfRange blames plugin for a value the OCI spec or the kernel cannot
// take (a *limits.FieldError, which names the field).
func outOfRange(plugin string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: plugin %q: %w", ErrInvalidAdjustment, plugin, err)
}

// checkPlugin rejects owner names that would be ambiguous in the ownership
// table: "-" marks cleared ownership and "," joins hook owners.
func checkPlugin(plugin string) error {
	if plugin == "" || strings.HasPrefix(plugin, "-") || strings.Contains(plugin, ",") {
		return fmt.Errorf("%w: %q cannot own adjustments", api.ErrInvalidName, plugin)
	}
	return nil
}

// fieldNames are the human words used in conflict errors.
var fieldNames = map[api.Field]string{
	api.Field_Annotations:         "annotation",
	api.Field_Mounts:              "mount",
	api.Field_OciHooks:            "OCI hooks",
	api.Field_Devices:             "device",
	api.Field_CdiDevices:          "CDI device",
	api.Field_Env:                 "environment variable",
	api.Field_Args:                "args",
	api.Field_MemLimit:            "memory limit",
	api.Field_MemReservation:      "memory reservation",
	api.Field_MemSwapLimit:        "memory swap limit",
	api.Field_MemKernelLimit:      "memory kernel limit",
	api.Field_MemTCPLimit:         "memory kernel TCP limit",
	api.Field_MemSwappiness:       "memory swappiness",
	api.Field_MemDisableOomKiller: "memory disable OOM killer",
	api.Field_MemUseHierarchy:     "memory use hierarchy",
	api.Field_CPUShares:           "CPU shares",
	api.Field_CPUQuota:            "CPU quota",
	api.Field_CPUPeriod:           "CPU period",
	api.Field_CPURealtimeRuntime:  "CPU realtime runtime",
	api.Field_CPURealtimePeriod:   "CPU realtime period",
	api.Field_CPUSetCPUs:          "cpuset CPUs",
	api.Field_CPUSetMems:          "cpuset memory nodes",
	api.Field_PidsLimit:           "pids limit",
	api.Field_HugepageLimits:      "hugepage limit",
	api.Field_BlockioClass:        "block I/O class",
	api.Field_RdtClass:            "RDT class",
	api.Field_CgroupsUnified:      "unified cgroup resource",
	api.Field_CgroupsPath:         "cgroups path",
	api.Field_OomScoreAdj:         "OOM score adjustment",
	api.Field_Rlimits:             "rlimit",
	api.Field_IoPriority:          "I/O priority",
	api.Field_SeccompPolicy:       "seccomp policy",
	api.Field_Namespace:           "namespace",
	api.Field_Sysctl:              "sysctl",
	api.Field_LinuxNetDevices:     "net device",
	api.Field_LinuxSched:          "scheduler",
	api.Field_RdtClosID:           "RDT CLOS ID",
	api.Field_RdtSchemata:         "RDT schemata",
	api.Field_RdtEnableMonitoring: "RDT monitoring",
	api.Field_MemoryPolicy:        "memory policy",
}

func fieldName(f api.Field) string {
	if n, ok := fieldNames[f]; ok {
		return n
	}
	return f.String()
}
