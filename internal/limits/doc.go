// SPDX-License-Identifier: Apache-2.0

// Package limits refuses resource values that neither the OCI runtime-spec
// nor the Linux kernel can take, so that a plugin asking for one is blamed
// when its reply is merged instead of the container failing later, deep in
// the OCI runtime, or worse, being created with a setting the runtime
// silently reinterpreted (a wrapped-around negative number, a cgroup file
// name that leaves the cgroup).
//
// What is checked, field by field (µs: microseconds, as the cgroup files
// and the spec count them):
//
//	memory limit, reservation, swap,       -1 (unlimited) or >= 0
//	  kernel, kernel_tcp
//	memory swap with limit                 swap >= limit when both are > 0 (memory+swap)
//	memory swappiness                      0..100
//	cpu shares                             0 (unset) or 2..262144 (kernel's MIN/MAX_SHARES;
//	                                       1 or more wraps in the cgroup v2 weight conversion)
//	cpu quota                              -1 (unlimited), 0 (unset) or 1000..2^44-1 µs
//	cpu period                             0 (unset) or 1000..1000000 µs (1 ms .. 1 s)
//	cpu realtime runtime                   -1 (unlimited) or 0..2^44-1 µs
//	cpu realtime period                    0 (unset) or 1..2^44-1 µs, and >= the
//	                                       realtime runtime when both are set
//	cpuset cpus, cpuset mems,              a Linux CPU list: "N", "N-M", "N-M:A/G" items
//	  memory policy nodes                  separated by ',', N <= M, 0 < A <= G, numbers < 65536
//	pids limit                             -1 (unlimited), 0 (unset) or > 0
//	hugepage page size                     <number><K|M|G|T>B, as in hugetlb.<size>.limit_in_bytes
//	unified cgroup entry name              a plain file name "<controller>.<file>": no '/',
//	                                       no NUL, not starting with '.'
//	unified cgroup entry value             no NUL
//	oom_score_adj                          -1000..1000
//	rlimit                                 a type, and soft <= hard
//	I/O priority                           0..7
//	scheduler nice, priority               -20..19, 0..99
//	I/O priority class, scheduling policy  one of the values the API defines
//	  and flags, memory policy mode
//	  and flags
//
// Not checked here: hugepage limit values (the kernel rounds them), block
// I/O and RDT class names (the runtime resolves them and fails on unknown
// ones), cgroup device rules (checked by the merge and by ocispec). NRI's
// resources carry no block I/O weights.
package limits
