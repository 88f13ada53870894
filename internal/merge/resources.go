// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"maps"
	"slices"

	"github.com/nrikit/nrikit/api"
)

// mergeResources merges what src sets into dst (the reference's merge rules for resources,
// ownership). Each memory and CPU value is a simple field claimed only when
// the plugin sets it; hugepage limits are claimed per page size and unified
// entries per key.
//
// Cgroup device rules are not tracked: withDevices appends them (container
// adjustments); updates never merge them.
//
// pids: merged like any other simple field, for adjustments and updates
// alike. Deliberate deviation from the reference: its update
// merge drops a plugin's pids change and makes every later update of a
// container that already has a pids limit conflict on PidsLimit.
func (cl claims) mergeResources(dst, src *api.LinuxResources, withDevices bool) error {
	if src == nil {
		return nil
	}
	if err := firstError(
		cl.memory(dst, src.Memory),
		cl.cpu(dst, src.Cpu),
		cl.hugepages(dst, src.HugepageLimits),
		take(cl.claim, api.Field_BlockioClass, src.BlockioClass, &dst.BlockioClass),
		take(cl.claim, api.Field_RdtClass, src.RdtClass, &dst.RdtClass),
		cl.unified(dst, src.Unified),
		take(cl.claim, api.Field_PidsLimit, src.Pids, &dst.Pids),
	); err != nil {
		return err
	}
	if !withDevices {
		return nil
	}
	for _, d := range src.Devices {
		if d == nil {
			return invalid(cl.plugin, "nil cgroup device rule")
		}
		dst.Devices = append(dst.Devices, cloneMsg(d))
	}
	return nil
}

func (cl claims) memory(dst *api.LinuxResources, src *api.LinuxMemory) error {
	if src == nil {
		return nil
	}
	if dst.Memory == nil {
		dst.Memory = &api.LinuxMemory{}
	}
	m := dst.Memory
	return firstError(
		take(cl.claim, api.Field_MemLimit, src.Limit, &m.Limit),
		take(cl.claim, api.Field_MemReservation, src.Reservation, &m.Reservation),
		take(cl.claim, api.Field_MemSwapLimit, src.Swap, &m.Swap),
		take(cl.claim, api.Field_MemKernelLimit, src.Kernel, &m.Kernel),
		take(cl.claim, api.Field_MemTCPLimit, src.KernelTcp, &m.KernelTcp),
		take(cl.claim, api.Field_MemSwappiness, src.Swappiness, &m.Swappiness),
		take(cl.claim, api.Field_MemDisableOomKiller, src.DisableOomKiller, &m.DisableOomKiller),
		take(cl.claim, api.Field_MemUseHierarchy, src.UseHierarchy, &m.UseHierarchy),
	)
}

func (cl claims) cpu(dst *api.LinuxResources, src *api.LinuxCPU) error {
	if src == nil {
		return nil
	}
	if dst.Cpu == nil {
		dst.Cpu = &api.LinuxCPU{}
	}
	c := dst.Cpu
	return firstError(
		take(cl.claim, api.Field_CPUShares, src.Shares, &c.Shares),
		take(cl.claim, api.Field_CPUQuota, src.Quota, &c.Quota),
		take(cl.claim, api.Field_CPUPeriod, src.Period, &c.Period),
		take(cl.claim, api.Field_CPURealtimeRuntime, src.RealtimeRuntime, &c.RealtimeRuntime),
		take(cl.claim, api.Field_CPURealtimePeriod, src.RealtimePeriod, &c.RealtimePeriod),
		takeString(cl.claim, api.Field_CPUSetCPUs, src.Cpus, &c.Cpus),
		takeString(cl.claim, api.Field_CPUSetMems, src.Mems, &c.Mems),
	)
}

func (cl claims) hugepages(dst *api.LinuxResources, src []*api.HugepageLimit) error {
	return mergeKeyed(cl, api.Field_HugepageLimits, src, hugepageKey, &dst.HugepageLimits, nil)
}

func (cl claims) unified(dst *api.LinuxResources, src map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(src)) {
		if err := cl.plainKey(api.Field_CgroupsUnified, k); err != nil {
			return err
		}
		if err := cl.claim(api.Field_CgroupsUnified, k); err != nil {
			return err
		}
		if dst.Unified == nil {
			dst.Unified = map[string]string{}
		}
		dst.Unified[k] = src[k]
	}
	return nil
}

// take claims simple field f and copies src into *dst, if the plugin set src.
func take[E any, P msg[E]](claim claimFn, f api.Field, src P, dst *P) error {
	if src == nil {
		return nil
	}
	if err := claim(f, ""); err != nil {
		return err
	}
	*dst = cloneMsg(src)
	return nil
}

// takeString is take for plain strings, where "" means unset.
func takeString(claim claimFn, f api.Field, src string, dst *string) error {
	if src == "" {
		return nil
	}
	if err := claim(f, ""); err != nil {
		return err
	}
	*dst = src
	return nil
}

// mergeKeyed merges an add-only list keyed per entry (hugepage limits,
// rlimits, CDI devices): claim each key, then replace or add the entries in
// *out and, through ctr if given, in the request's container.
func mergeKeyed[E any, P msg[E]](cl claims, f api.Field, in []P, key func(P) string, out *[]P, ctr func(puts []P)) error {
	for _, e := range in {
		if e == nil {
			return invalid(cl.plugin, "nil %s entry", fieldName(f))
		}
		k := key(e)
		if err := cl.plainKey(f, k); err != nil {
			return err
		}
		if err := cl.claim(f, k); err != nil {
			return err
		}
	}
	if len(in) == 0 {
		return nil
	}
	*out = rewrite(*out, key, nil, cloneList(in))
	if ctr != nil {
		ctr(cloneList(in))
	}
	return nil
}
