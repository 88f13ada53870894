// Package ocispec applies what NRI plugins asked for to a container's OCI
// runtime spec: the merged adjustment of CreateContainer (Apply) and the
// merged resource updates of UpdateContainer and of container updates
// (ApplyResources). It also converts between the NRI data model and the
// spec, so a runtime can fill CreateContainerRequest.container from the spec
// it generated (ContainerFromSpec).
//
// # Atomicity
//
// Apply first converts and checks the whole adjustment, then changes the
// spec. A value that cannot go into a spec (an unknown namespace, rlimit,
// device type, scheduler policy, seccomp action, …) fails with an error
// wrapping ErrInvalidAdjustment and leaves the spec untouched, so a runtime
// can fail the creation cleanly instead of starting a half-adjusted
// container. Errors of the Applier's resolvers are returned as they are,
// with the class named. Nil adjustments, specs without process or linux
// sections, and nil maps are fine: sections are created only when something
// is set in them.
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
//     depth, so a new /data never shadows an existing /data/sub.
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
//     to the runtime.
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
// # What is not applied
//
// CDI devices: injecting them needs the node's CDI registry, which is the
// runtime's. Apply ignores them; CDIDevices lists the names so the runtime
// can inject them into the adjusted spec.
package ocispec
