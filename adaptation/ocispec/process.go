// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"slices"
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// planArgs drops the take-over marker (a leading "") that merging normally
// strips already; what remains must be a command line.
func planArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if args[0] == "" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "" {
		return nil, invalid("args name no program")
	}
	for _, a := range args {
		if strings.ContainsRune(a, 0) {
			return nil, invalid("argument %q contains NUL", a)
		}
	}
	return slices.Clone(args), nil
}

func applyArgs(spec *rspec.Spec, args []string) {
	if args != nil {
		ensureProcess(spec).Args = args
	}
}

// rlimitTypes are the limits setrlimit(2) knows, by their spec names.
var rlimitTypes = map[string]bool{
	"RLIMIT_AS": true, "RLIMIT_CORE": true, "RLIMIT_CPU": true, "RLIMIT_DATA": true,
	"RLIMIT_FSIZE": true, "RLIMIT_LOCKS": true, "RLIMIT_MEMLOCK": true, "RLIMIT_MSGQUEUE": true,
	"RLIMIT_NICE": true, "RLIMIT_NOFILE": true, "RLIMIT_NPROC": true, "RLIMIT_RSS": true,
	"RLIMIT_RTPRIO": true, "RLIMIT_RTTIME": true, "RLIMIT_SIGPENDING": true, "RLIMIT_STACK": true,
}

// planRlimits checks what setrlimit would refuse: an unknown type, or a soft
// limit above the hard one.
func planRlimits(in []*api.POSIXRlimit) ([]rspec.POSIXRlimit, error) {
	var out []rspec.POSIXRlimit
	for _, r := range in {
		if !rlimitTypes[r.GetType()] {
			return nil, invalid("unknown rlimit %q", r.GetType())
		}
		if r.Soft > r.Hard {
			return nil, invalid("rlimit %s: soft limit %d above hard limit %d", r.Type, r.Soft, r.Hard)
		}
		out = append(out, rspec.POSIXRlimit{Type: r.Type, Hard: r.Hard, Soft: r.Soft})
	}
	return out, nil
}

// applyRlimits sets each limit by type; a later one of the same type wins.
func applyRlimits(spec *rspec.Spec, rl []rspec.POSIXRlimit) {
	if len(rl) == 0 {
		return
	}
	p := ensureProcess(spec)
	e := listEdit[rspec.POSIXRlimit]{set: rl}
	p.Rlimits = e.apply(p.Rlimits, func(r rspec.POSIXRlimit) string { return r.Type })
}

// planOOMScoreAdj checks the kernel's range for oom_score_adj.
func planOOMScoreAdj(v *api.OptionalInt) (replace[*int], error) {
	if v == nil {
		return replace[*int]{}, nil
	}
	if v.Value < -1000 || v.Value > 1000 {
		return replace[*int]{}, invalid("oom_score_adj %d outside [-1000, 1000]", v.Value)
	}
	return replaceWith(ptr(int(v.Value))), nil
}

// planIOPriority maps the class; IOPRIO_CLASS_NONE clears the priority, since
// the spec has no "none" class. Priorities are 0 (highest) to 7.
func planIOPriority(p *api.LinuxIOPriority) (replace[*rspec.LinuxIOPriority], error) {
	if p == nil {
		return replace[*rspec.LinuxIOPriority]{}, nil
	}
	class, err := ioPrioClass(p.Class)
	if err != nil {
		return replace[*rspec.LinuxIOPriority]{}, err
	}
	if class == "" {
		return replaceWith[*rspec.LinuxIOPriority](nil), nil
	}
	if p.Priority < 0 || p.Priority > 7 {
		return replace[*rspec.LinuxIOPriority]{}, invalid("I/O priority %d outside [0, 7]", p.Priority)
	}
	return replaceWith(&rspec.LinuxIOPriority{Class: class, Priority: int(p.Priority)}), nil
}

// planScheduler converts the policy and flags; SCHED_NONE clears the
// scheduler settings, since the spec has no "none" policy.
func planScheduler(s *api.LinuxScheduler) (replace[*rspec.Scheduler], error) {
	if s == nil {
		return replace[*rspec.Scheduler]{}, nil
	}
	policy, err := schedPolicy(s.Policy)
	if err != nil {
		return replace[*rspec.Scheduler]{}, err
	}
	if policy == "" {
		return replaceWith[*rspec.Scheduler](nil), nil
	}
	if s.Nice < -20 || s.Nice > 19 {
		return replace[*rspec.Scheduler]{}, invalid("nice value %d outside [-20, 19]", s.Nice)
	}
	o := &rspec.Scheduler{
		Policy: policy, Nice: s.Nice, Priority: s.Priority,
		Runtime: s.Runtime, Deadline: s.Deadline, Period: s.Period,
	}
	for _, f := range s.Flags {
		flag, err := schedFlag(f)
		if err != nil {
			return replace[*rspec.Scheduler]{}, err
		}
		o.Flags = append(o.Flags, flag)
	}
	return replaceWith(o), nil
}
