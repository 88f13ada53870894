// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"slices"

	"github.com/nrikit/nrikit/api"
)

// args replaces the whole command line. A first element "" takes the field
// over: ownership is cleared to this plugin before it claims, and the "" is
// dropped.
//
// Deliberate deviation: args of just [""] are rejected. The reference would
// set an empty command line on the container while its merged reply (empty
// args = "no change") keeps the earlier one, which no runtime can act on.
func (r *createReply) args(a *api.ContainerAdjustment) error {
	args := a.Args
	if len(args) == 0 {
		return nil
	}
	if args[0] == "" {
		if len(args) == 1 {
			return invalid(r.plugin, "args take over an empty command line")
		}
		r.clear(api.Field_Args, "")
		args = args[1:]
	}
	if err := r.claim(api.Field_Args, ""); err != nil {
		return err
	}
	r.out.Args = slices.Clone(args)
	r.ctr.Args = slices.Clone(args)
	return nil
}

// hooks are appended per hook type and never conflict: their owner record
// lists every contributing plugin, "10-a,20-b".
func (r *createReply) hooks(a *api.ContainerAdjustment) error {
	h := a.Hooks
	if h == nil {
		return nil
	}
	lists := [][]*api.Hook{h.Prestart, h.CreateRuntime, h.CreateContainer, h.StartContainer, h.Poststart, h.Poststop}
	n := 0
	for _, l := range lists {
		if slices.Contains(l, nil) {
			return invalid(r.plugin, "nil OCI hook")
		}
		n += len(l)
	}
	if n == 0 {
		return nil
	}
	if r.out.Hooks == nil {
		r.out.Hooks = &api.Hooks{}
	}
	if r.ctr.Hooks == nil {
		r.ctr.Hooks = &api.Hooks{}
	}
	for _, dst := range []*api.Hooks{r.out.Hooks, r.ctr.Hooks} {
		dst.Prestart = append(dst.Prestart, cloneList(h.Prestart)...)
		dst.CreateRuntime = append(dst.CreateRuntime, cloneList(h.CreateRuntime)...)
		dst.CreateContainer = append(dst.CreateContainer, cloneList(h.CreateContainer)...)
		dst.StartContainer = append(dst.StartContainer, cloneList(h.StartContainer)...)
		dst.Poststart = append(dst.Poststart, cloneList(h.Poststart)...)
		dst.Poststop = append(dst.Poststop, cloneList(h.Poststop)...)
	}
	r.owners.accumulate(r.id, api.Field_OciHooks, r.plugin)
	return nil
}

// resources are merged into the merged reply with claims, then replayed onto
// the container's resources without claims.
func (r *createReply) resources(l *api.LinuxContainerAdjustment) error {
	src := l.Resources
	if src == nil {
		return nil
	}
	out := r.outLinux()
	if out.Resources == nil {
		out.Resources = &api.LinuxResources{}
	}
	if err := r.mergeResources(out.Resources, src, true); err != nil {
		return err
	}
	ctr := r.ctrLinux()
	if ctr.Resources == nil {
		ctr.Resources = &api.LinuxResources{}
	}
	return r.replay().mergeResources(ctr.Resources, src, true)
}

func (r *createReply) cgroupsPath(l *api.LinuxContainerAdjustment) error {
	if l.CgroupsPath == "" {
		return nil
	}
	if err := takeString(r.claim, api.Field_CgroupsPath, l.CgroupsPath, &r.outLinux().CgroupsPath); err != nil {
		return err
	}
	r.ctrLinux().CgroupsPath = l.CgroupsPath
	return nil
}

func (r *createReply) oomScoreAdj(l *api.LinuxContainerAdjustment) error {
	if l.OomScoreAdj == nil {
		return nil
	}
	if err := take(r.claim, api.Field_OomScoreAdj, l.OomScoreAdj, &r.outLinux().OomScoreAdj); err != nil {
		return err
	}
	r.ctrLinux().OomScoreAdj = cloneMsg(l.OomScoreAdj)
	return nil
}

func (r *createReply) ioPriority(l *api.LinuxContainerAdjustment) error {
	if l.IoPriority == nil {
		return nil
	}
	if err := take(r.claim, api.Field_IoPriority, l.IoPriority, &r.outLinux().IoPriority); err != nil {
		return err
	}
	r.ctrLinux().IoPriority = cloneMsg(l.IoPriority)
	return nil
}

func (r *createReply) seccompPolicy(l *api.LinuxContainerAdjustment) error {
	if l.SeccompPolicy == nil {
		return nil
	}
	if err := take(r.claim, api.Field_SeccompPolicy, l.SeccompPolicy, &r.outLinux().SeccompPolicy); err != nil {
		return err
	}
	r.ctrLinux().SeccompPolicy = cloneMsg(l.SeccompPolicy)
	return nil
}

func (r *createReply) scheduler(l *api.LinuxContainerAdjustment) error {
	if l.Scheduler == nil {
		return nil
	}
	if err := take(r.claim, api.Field_LinuxSched, l.Scheduler, &r.outLinux().Scheduler); err != nil {
		return err
	}
	r.ctrLinux().Scheduler = cloneMsg(l.Scheduler)
	return nil
}

// memoryPolicy has no counterpart in Container, so later plugins do not see it.
func (r *createReply) memoryPolicy(l *api.LinuxContainerAdjustment) error {
	if l.MemoryPolicy == nil {
		return nil
	}
	return take(r.claim, api.Field_MemoryPolicy, l.MemoryPolicy, &r.outLinux().MemoryPolicy)
}

// rdt sets each sub-field the plugin sets, each one claimed on its own and
// cancelling an earlier removal. remove=true takes all three over: their
// ownership is cleared to this plugin and the merged value restarts as
// {remove: true}; sub-fields set in the same reply then apply on top
// ("remove and set in one reply replaces"). Later plugins do not see RDT changes.
//
// Deliberate deviation: the reference also leaves an empty linux.rdt in the
// merged reply of any plugin that sent a linux part; we only carry rdt when a
// plugin sent one.
func (r *createReply) rdt(l *api.LinuxContainerAdjustment) error {
	src := l.Rdt
	if src == nil {
		return nil
	}
	out := r.outLinux()
	if src.Remove {
		for _, f := range []api.Field{api.Field_RdtClosID, api.Field_RdtSchemata, api.Field_RdtEnableMonitoring} {
			r.clear(f, "")
		}
		out.Rdt = &api.LinuxRdt{Remove: true}
	}
	if out.Rdt == nil {
		out.Rdt = &api.LinuxRdt{}
	}
	dst := out.Rdt
	if err := firstError(
		take(r.claim, api.Field_RdtClosID, src.ClosId, &dst.ClosId),
		take(r.claim, api.Field_RdtSchemata, src.Schemata, &dst.Schemata),
		take(r.claim, api.Field_RdtEnableMonitoring, src.EnableMonitoring, &dst.EnableMonitoring),
	); err != nil {
		return err
	}
	if src.ClosId != nil || src.Schemata != nil || src.EnableMonitoring != nil {
		dst.Remove = false
	}
	return nil
}
