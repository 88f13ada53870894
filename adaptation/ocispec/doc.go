// SPDX-License-Identifier: Apache-2.0

// Package ocispec applies what NRI plugins asked for to a container's OCI
// runtime spec: the merged adjustment of CreateContainer (Apply) and the
// merged resource updates of UpdateContainer and of container updates
// (ApplyResources). It also converts between the NRI data model and the
// spec, so a runtime can fill CreateContainerRequest.container from the spec
// it generated (ContainerFromSpec).
//
// # Atomicity
//
// Apply first converts and checks the whole adjustment, then applies it to
// a copy of the spec, and replaces the spec with the copy only when every
// step and every hook of the Applier succeeded. A value that cannot go into
// a spec (an unknown namespace, rlimit, device type, scheduler policy,
// seccomp action, …) fails with an error wrapping ErrInvalidAdjustment
// before any hook is called; an error of a hook is returned wrapped, with
// the hook named, and does not wrap ErrInvalidAdjustment; a mount whose
// propagation the host cannot give fails, after the hooks, with an error
// wrapping ErrMountPropagation. Whichever way it fails, the
// spec is left exactly as it was, so a runtime can fail the creation cleanly
// instead of starting a half-adjusted container. Nil adjustments, specs
// without process or linux sections, and nil maps are fine: sections are
// created only when something is set in them.
//
// # Runtime hooks
//
// An Applier takes the five hooks the reference's spec generator
// (github.com/containerd/nri/pkg/runtime-tools/generate) takes as options,
// and calls each at the same point of the application, so each sees the
// spec as there:
//
//	reference option       Applier field       called
//	WithAnnotationFilter   AnnotationFilter    first, with the adjustment's annotations
//	WithCDIDeviceInjector  CDIDeviceInjector   after annotations, env, args and OCI hooks, before
//	                                           the plugins' device and mount edits (which apply on
//	                                           top of what it injected); only for named CDI devices
//	WithResourceChecker    ResourceChecker     once the adjustment's resources are in (after the
//	                                           devices' cgroup rules, before the classes); only when
//	                                           the adjustment has resources
//	WithBlockIOResolver    BlockIOClass        after the checker, for a block I/O class other than ""
//	WithRdtResolver        RDTClass            after that, for an RDT class other than ""
//
// The class "" clears block I/O or RDT settings without a call, as in the
// reference. ApplyResources calls ResourceChecker, BlockIOClass and RDTClass
// in the same order. The reference's WithLabelFilter has no counterpart: its
// generator never calls the label filter.
//
// # Memory defaults
//
// As in the reference, a CreateContainer adjustment's memory limit of 0
// changes nothing, and a new non-zero limit without a swap limit of its own
// also sets swap to the limit (no swap on top of it), so the spec never
// keeps an older, smaller swap limit that runtimes would refuse. Unlike the
// reference, the other memory settings the plugin made (swap included) are
// applied. ApplyResources applies updates as they are.
//
// # Removal markers
//
// A key with a leading '-' removes the entry: an
// annotation, mount destination, env name, device path, namespace type,
// sysctl or net device. Removals are applied before the sets of the same
// adjustment: in a merged adjustment, a "-K" beside a "K" comes from a plugin
// that dropped the container's K and a later one that set a new K.
//
// # What is applied, and how
//
//   - annotations, sysctl, net devices: set, or deleted by "-K".
//   - mounts: a mount replaces the ones at the same (cleaned) destination,
//     "-D" removes them. After additions the mounts are stably sorted by path
//     depth, so a new /data never shadows an existing /data/sub. An added
//     rshared or rslave mount needs its source's host mount to propagate
//     as much (checked on Linux; otherwise Apply fails with an error
//     wrapping ErrMountPropagation), and raises linux.rootfsPropagation to
//     match, as the reference does.
//   - env: a variable replaces the first one of its name and drops later
//     duplicates, so its value is unambiguous; "-N" removes every "N=…".
//   - args replace the command line; a leading "" (the take-over marker) is
//     dropped. Hooks are appended per kind. Rlimits are set by type.
//   - linux devices: added or replaced by path, "-P" removes. An added
//     c/b/u device also gets a cgroup rule allowing "rwm" on it (unless an
//     identical rule is already in force), because a node the device cgroup
//     denies is useless. Removing a device leaves the cgroup rules alone: a
//     rule may be shared (wildcards, other nodes with the same numbers), and
//     without the node the container cannot reach the device anyway unless
//     it may mknod.
//   - resources: memory, CPU, pids, hugepage limits (by page size) and
//     unified entries are set where present; cgroup device rules are
//     appended after the ones above, so a plugin's explicit rule wins.
//     rdt_class becomes the Intel RDT CLOS ID, as containerd does, unless
//     Applier.RDTClass resolves it otherwise. blockio_class has no spec
//     field: it is applied only through Applier.BlockIOClass, otherwise left
//     to the runtime. See "Memory defaults" for the memory limit.
//   - cgroups_path (non-empty), oom_score_adj, io_priority (class NONE
//     clears it), seccomp_policy (replaces spec.Linux.Seccomp), scheduler
//     (policy SCHED_NONE clears it), memory_policy: replaced.
//   - namespaces: added or replaced by type, "-T" removes.
//   - rdt: remove=true drops spec.Linux.IntelRdt before any RDT setting of
//     the adjustment is applied (rdt_class included); the CLOS ID, schemata
//     and monitoring flag are then set where present. Setting schemata
//     clears the legacy L3/MB schema strings, which the spec says must not
//     be combined with it. An Intel RDT section left empty is dropped:
//     runtimes reject one on hosts without RDT.
//
// # CDI devices
//
// Injecting CDI devices needs the node's CDI registry, which is the
// runtime's: Apply hands their names to Applier.CDIDeviceInjector, and
// without one ignores them (CDIDevices lists the names).
package ocispec
