// SPDX-License-Identifier: Apache-2.0

package limits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// ErrOutOfRange is wrapped by every error of this package.
var ErrOutOfRange = errors.New("value out of range")

// FieldError is one refused value.
type FieldError struct {
	Field  string // "cpu.quota", "memory.limit", "rlimits[RLIMIT_NOFILE]"
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrOutOfRange) hold.
func (e *FieldError) Unwrap() error { return ErrOutOfRange }

func refuse(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Kernel bounds (kernel/sched/core.c, kernel/sched/sched.h).
const (
	minShares    = 2
	maxShares    = 262144
	minCFSPeriod = 1000    // µs
	maxCFSPeriod = 1000000 // µs
	minCFSQuota  = 1000    // µs
	maxBandwidth = 1<<44 - 1
	maxCPUIndex  = 1<<16 - 1
)

// Adjustment checks every numeric and formatted value of a container
// adjustment; nil is fine.
func Adjustment(a *api.ContainerAdjustment) error {
	if a == nil {
		return nil
	}
	for _, r := range a.Rlimits {
		if err := rlimit(r); err != nil {
			return err
		}
	}
	l := a.GetLinux()
	if l == nil {
		return nil
	}
	if err := Resources(l.Resources); err != nil {
		return err
	}
	for _, d := range l.Devices {
		if err := device(d); err != nil {
			return err
		}
	}
	if v := l.OomScoreAdj; v != nil && (v.Value < -1000 || v.Value > 1000) {
		return refuse("oom_score_adj", "%d outside [-1000, 1000]", v.Value)
	}
	if p := l.IoPriority; p != nil && (p.Priority < 0 || p.Priority > 7) {
		return refuse("io_priority.priority", "%d outside [0, 7]", p.Priority)
	}
	if err := scheduler(l.Scheduler); err != nil {
		return err
	}
	return enums(l)
}

func scheduler(s *api.LinuxScheduler) error {
	if s == nil {
		return nil
	}
	if s.Nice < -20 || s.Nice > 19 {
		return refuse("scheduler.nice", "%d outside [-20, 19]", s.Nice)
	}
	if s.Priority < 0 || s.Priority > 99 {
		return refuse("scheduler.priority", "%d outside [0, 99]", s.Priority)
	}
	return nil
}

// enums refuses the values of enumerations that the API does not define
// (an I/O priority class 12345): the OCI conversion would fail on them
// later, naming no plugin. It also checks the memory policy's nodes.
func enums(l *api.LinuxContainerAdjustment) error {
	if p := l.IoPriority; p != nil && !defined(api.IOPrioClass_name, p.Class) {
		return refuse("io_priority.class", "unknown I/O priority class %d", p.Class)
	}
	if s := l.Scheduler; s != nil {
		if !defined(api.LinuxSchedulerPolicy_name, s.Policy) {
			return refuse("scheduler.policy", "unknown scheduler policy %d", s.Policy)
		}
		for _, f := range s.Flags {
			if !defined(api.LinuxSchedulerFlag_name, f) {
				return refuse("scheduler.flags", "unknown scheduler flag %d", f)
			}
		}
	}
	if m := l.MemoryPolicy; m != nil {
		if !defined(api.MpolMode_name, m.Mode) {
			return refuse("memory_policy.mode", "unknown memory policy mode %d", m.Mode)
		}
		for _, f := range m.Flags {
			if !defined(api.MpolFlag_name, f) {
				return refuse("memory_policy.flags", "unknown memory policy flag %d", f)
			}
		}
		if m.Nodes != "" {
			if err := CPUList(m.Nodes); err != nil {
				return refuse("memory_policy.nodes", "%v", err)
			}
		}
	}
	return nil
}

// defined tells whether v is one of an enumeration's values.
func defined[E ~int32](names map[int32]string, v E) bool {
	_, ok := names[int32(v)]
	return ok
}

// device refuses negative numbers of a device node (a FIFO has none), which
// no kernel takes.
func device(d *api.LinuxDevice) error {
	if d != nil && d.Type != "p" && (d.Major < 0 || d.Minor < 0) {
		return refuse("devices["+d.Path+"]", "negative device number %d:%d", d.Major, d.Minor)
	}
	return nil
}

func rlimit(r *api.POSIXRlimit) error {
	if r == nil {
		return nil // the merge reports nil entries itself
	}
	if r.Type == "" {
		return refuse("rlimits", "entry without a type")
	}
	if r.Soft > r.Hard {
		return refuse("rlimits["+r.Type+"]", "soft limit %d above hard limit %d", r.Soft, r.Hard)
	}
	return nil
}

// Resources checks cgroup resource values; nil is fine.
func Resources(r *api.LinuxResources) error {
	if r == nil {
		return nil
	}
	if err := memory(r.Memory); err != nil {
		return err
	}
	if err := cpu(r.Cpu); err != nil {
		return err
	}
	if p := r.Pids; p != nil && p.Limit < -1 {
		return refuse("pids.limit", "%d below -1 (unlimited)", p.Limit)
	}
	for _, h := range r.HugepageLimits {
		if h != nil && !pageSize(h.PageSize) {
			return refuse("hugepage_limits", "page size %q is not <number><K|M|G|T>B", h.PageSize)
		}
	}
	for k, v := range r.Unified {
		if err := unifiedEntry(k, v); err != nil {
			return err
		}
	}
	return nil
}

func memory(m *api.LinuxMemory) error {
	if m == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    *api.OptionalInt64
	}{
		{"memory.limit", m.Limit}, {"memory.reservation", m.Reservation}, {"memory.swap", m.Swap},
		{"memory.kernel", m.Kernel}, {"memory.kernel_tcp", m.KernelTcp},
	} {
		if f.v != nil && f.v.Value < -1 {
			return refuse(f.name, "%d below -1 (unlimited)", f.v.Value)
		}
	}
	if l, s := m.Limit.GetValue(), m.Swap.GetValue(); l > 0 && s > 0 && s < l {
		return refuse("memory.swap", "memory+swap %d below the memory limit %d", s, l)
	}
	if s := m.Swappiness; s != nil && s.Value > 100 {
		return refuse("memory.swappiness", "%d above 100", s.Value)
	}
	return nil
}

func cpu(c *api.LinuxCPU) error {
	if c == nil {
		return nil
	}
	if s := c.Shares; s != nil && s.Value != 0 && (s.Value < minShares || s.Value > maxShares) {
		return refuse("cpu.shares", "%d outside [%d, %d]", s.Value, minShares, maxShares)
	}
	if q := c.Quota; q != nil && q.Value != 0 && q.Value != -1 && (q.Value < minCFSQuota || q.Value > maxBandwidth) {
		return refuse("cpu.quota", "%d µs is neither -1 (unlimited) nor within [%d, %d]", q.Value, minCFSQuota, int64(maxBandwidth))
	}
	if p := c.Period; p != nil && p.Value != 0 && (p.Value < minCFSPeriod || p.Value > maxCFSPeriod) {
		return refuse("cpu.period", "%d µs outside [%d, %d]", p.Value, minCFSPeriod, maxCFSPeriod)
	}
	if r := c.RealtimeRuntime; r != nil && (r.Value < -1 || r.Value > maxBandwidth) {
		return refuse("cpu.realtime_runtime", "%d µs is neither -1 (unlimited) nor within [0, %d]", r.Value, int64(maxBandwidth))
	}
	if p := c.RealtimePeriod; p != nil && p.Value > maxBandwidth {
		return refuse("cpu.realtime_period", "%d µs above %d", p.Value, int64(maxBandwidth))
	}
	if r, p := c.RealtimeRuntime, c.RealtimePeriod; r != nil && p != nil && p.Value > 0 && r.Value > 0 && uint64(r.Value) > p.Value {
		return refuse("cpu.realtime_runtime", "%d µs above the realtime period %d µs", r.Value, p.Value)
	}
	if c.Cpus != "" {
		if err := CPUList(c.Cpus); err != nil {
			return refuse("cpu.cpus", "%v", err)
		}
	}
	if c.Mems != "" {
		if err := CPUList(c.Mems); err != nil {
			return refuse("cpu.mems", "%v", err)
		}
	}
	return nil
}

// pageSize accepts the sizes of hugetlb cgroup file names: "2MB", "1GB".
func pageSize(s string) bool {
	if len(s) < 3 || !strings.HasSuffix(s, "B") || !strings.ContainsRune("KMGT", rune(s[len(s)-2])) {
		return false
	}
	n, err := strconv.ParseUint(s[:len(s)-2], 10, 32)
	return err == nil && n > 0 && s[0] != '0' && s[0] != '+'
}

// unifiedEntry keeps a unified key a file in the container's own cgroup.
func unifiedEntry(k, v string) error {
	field := fmt.Sprintf("unified[%q]", k)
	switch {
	case strings.ContainsAny(k, "/\x00"):
		return refuse(field, "name is not a plain file name")
	case strings.HasPrefix(k, "."):
		return refuse(field, "name starts with '.'")
	case !strings.Contains(k, "."):
		return refuse(field, "name is not <controller>.<file>")
	case strings.ContainsRune(v, 0):
		return refuse(field, "value contains NUL")
	}
	return nil
}

// CPUList checks a Linux CPU or memory node list, as cpuset.cpus and
// cpuset.mems take it: comma-separated items "N", "N-M" or "N-M:A/G" (A of
// every G CPUs), N <= M, 0 < A <= G. A trailing newline is tolerated, as the
// kernel does.
func CPUList(s string) error {
	body := strings.TrimSuffix(s, "\n")
	if body == "" {
		return fmt.Errorf("%q is empty", s)
	}
	for _, item := range strings.Split(body, ",") {
		if err := cpuRange(item); err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
	}
	return nil
}

func cpuRange(item string) error {
	rng, group, grouped := strings.Cut(item, ":")
	lo, hi, isRange := strings.Cut(rng, "-")
	first, err := cpuIndex(lo)
	if err != nil {
		return err
	}
	last := first
	if isRange {
		if last, err = cpuIndex(hi); err != nil {
			return err
		}
		if last < first {
			return fmt.Errorf("range %q runs backwards", rng)
		}
	}
	if !grouped {
		return nil
	}
	if !isRange {
		return fmt.Errorf("group %q after a single CPU", item)
	}
	used, size, ok := strings.Cut(group, "/")
	if !ok {
		return fmt.Errorf("group %q is not A/G", group)
	}
	a, errA := cpuIndex(used)
	g, errG := cpuIndex(size)
	if errA != nil || errG != nil || a == 0 || a > g {
		return fmt.Errorf("group %q is not A/G with 0 < A <= G", group)
	}
	return nil
}

func cpuIndex(s string) (uint64, error) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n > maxCPUIndex {
		return 0, fmt.Errorf("%q is not a number up to %d", s, maxCPUIndex)
	}
	return n, nil
}
