// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"os"
	"testing"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

func TestContainerFromSpec(t *testing.T) {
	if ContainerFromSpec(nil) != nil {
		t.Error("nil spec gave a container")
	}
	if got := ContainerFromSpec(emptySpec()); !proto.Equal(got, &api.Container{}) {
		t.Errorf("empty spec gave %v", got)
	}

	s := sampleSpec()
	//lint:ignore SA1019 the deprecated field is still read
	s.Hooks = &rspec.Hooks{Prestart: []rspec.Hook{{Path: "/p", Timeout: ptr(3)}}, Poststop: []rspec.Hook{{Path: "/q", Args: []string{"q"}}}}
	s.Process.IOPriority = &rspec.LinuxIOPriority{Class: rspec.IOPRIO_CLASS_IDLE, Priority: 7}
	s.Process.Scheduler = &rspec.Scheduler{Policy: rspec.SchedRR, Priority: 10, Flags: []rspec.LinuxSchedulerFlag{rspec.SchedFlagReclaim, "SCHED_FLAG_NEW"}}
	s.Linux.Devices = []rspec.LinuxDevice{{Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229, FileMode: ptr(os.FileMode(0o600)), UID: ptr[uint32](1), GID: ptr[uint32](2)}}
	s.Linux.NetDevices = map[string]rspec.LinuxNetDevice{"eth1": {Name: "net1"}}
	s.Linux.Seccomp = &rspec.LinuxSeccomp{
		DefaultAction: rspec.ActErrno, DefaultErrnoRet: ptr[uint](1), Architectures: []rspec.Arch{rspec.ArchAARCH64},
		Syscalls: []rspec.LinuxSyscall{{Names: []string{"kill"}, Action: rspec.ActAllow, Args: []rspec.LinuxSeccompArg{{Index: 1, Value: 9, Op: rspec.OpEqualTo}}}},
	}
	s.Linux.IntelRdt = &rspec.LinuxIntelRdt{ClosID: "c", L3CacheSchema: "L3:0=f", MemBwSchema: "MB:0=20", EnableMonitoring: true}

	want := &api.Container{}
	text := `
annotations: {key: "io.kubernetes.cri.container-type" value: "container"}
annotations: {key: "io.kubernetes.cri.sandbox-id" value: "pod0"}
args: ["/bin/sh", "-c", "sleep inf"]
env: ["PATH=/usr/bin:/bin", "HOSTNAME=ctr0", "TERM=xterm"]
mounts: {destination: "/proc" type: "proc" source: "proc" options: ["nosuid", "noexec", "nodev"]}
mounts: {destination: "/dev" type: "tmpfs" source: "tmpfs" options: ["nosuid", "strictatime", "mode=755", "size=65536k"]}
mounts: {destination: "/dev/pts" type: "devpts" source: "devpts" options: ["nosuid", "noexec"]}
mounts: {destination: "/dev/shm" type: "bind" source: "/run/shm/pod0" options: ["rbind", "rw"]}
mounts: {destination: "/sys" type: "sysfs" source: "sysfs" options: ["nosuid", "noexec", "nodev", "ro"]}
mounts: {destination: "/sys/fs/cgroup" type: "cgroup" source: "cgroup" options: ["nosuid", "noexec", "nodev", "relatime", "ro"]}
mounts: {destination: "/etc/hosts" type: "bind" source: "/var/lib/pods/pod0/hosts" options: ["rbind", "rprivate", "rw"]}
mounts: {destination: "/data" type: "bind" source: "/srv/data" options: ["rbind", "rprivate", "rw"]}
hooks: {
  prestart: {path: "/p" timeout: {value: 3}}
  poststop: {path: "/q" args: "q"}
}
rlimits: {type: "RLIMIT_NOFILE" hard: 1024 soft: 1024}
user: {uid: 1000 gid: 1000 additional_gids: 10}
linux: {
  namespaces: {type: "pid"}
  namespaces: {type: "ipc" path: "/proc/42/ns/ipc"}
  namespaces: {type: "uts" path: "/proc/42/ns/uts"}
  namespaces: {type: "mount"}
  namespaces: {type: "network" path: "/var/run/netns/pod0"}
  devices: {path: "/dev/fuse" type: "c" major: 10 minor: 229 file_mode: {value: 384} uid: {value: 1} gid: {value: 2}}
  resources: {
    memory: {limit: {value: 268435456}}
    cpu: {shares: {value: 1024} quota: {value: 50000} period: {value: 100000}}
    devices: {allow: false access: "rwm"}
  }
  oom_score_adj: {value: 100}
  cgroups_path: "kubepods-pod0.slice:cri-containerd:ctr0"
  io_priority: {class: IOPRIO_CLASS_IDLE priority: 7}
  seccomp_policy: {
    default_action: "SCMP_ACT_ERRNO" default_errno: {value: 1} architectures: "SCMP_ARCH_AARCH64"
    syscalls: {names: "kill" action: "SCMP_ACT_ALLOW" args: {index: 1 value: 9 op: "SCMP_CMP_EQ"}}
  }
  sysctl: {key: "net.ipv4.ip_unprivileged_port_start" value: "0"}
  net_devices: {key: "eth1" value: {name: "net1"}}
  scheduler: {policy: SCHED_RR priority: 10 flags: SCHED_FLAG_RECLAIM}
  rdt: {clos_id: {value: "c"} schemata: {value: ["L3:0=f", "MB:0=20"]} enable_monitoring: {value: true}}
}`
	if err := prototext.Unmarshal([]byte(text), want); err != nil {
		t.Fatal(err)
	}
	if got := ContainerFromSpec(s); !proto.Equal(got, want) {
		t.Errorf("got\n%v\nwant\n%v", prototext.Format(got), prototext.Format(want))
	}

	// Values NRI cannot express are left out, not guessed.
	s.Process.IOPriority.Class = "IOPRIO_CLASS_FUTURE"
	s.Process.Scheduler.Policy = "SCHED_FUTURE"
	got := ContainerFromSpec(s)
	if got.Linux.IoPriority != nil || got.Linux.Scheduler != nil {
		t.Errorf("unknown enums converted: %v %v", got.Linux.IoPriority, got.Linux.Scheduler)
	}
}

// TestContainerFromSpecRoundTrip: what ContainerFromSpec reads, Apply writes
// back the same way.
func TestContainerFromSpecRoundTrip(t *testing.T) {
	src := mergedWant()
	c := ContainerFromSpec(src)
	adj := &api.ContainerAdjustment{
		Args: c.Args, Hooks: c.Hooks, Rlimits: c.Rlimits,
		Linux: &api.LinuxContainerAdjustment{
			Namespaces: c.Linux.Namespaces, Resources: c.Linux.Resources, OomScoreAdj: c.Linux.OomScoreAdj,
			CgroupsPath: c.Linux.CgroupsPath, IoPriority: c.Linux.IoPriority, SeccompPolicy: c.Linux.SeccompPolicy,
			Sysctl: c.Linux.Sysctl, NetDevices: c.Linux.NetDevices, Scheduler: c.Linux.Scheduler, Rdt: c.Linux.Rdt,
		},
	}
	dst := &rspec.Spec{}
	if err := Apply(dst, adj); err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]any{
		"args":      {dst.Process.Args, src.Process.Args},
		"rlimits":   {dst.Process.Rlimits, src.Process.Rlimits},
		"oom":       {dst.Process.OOMScoreAdj, src.Process.OOMScoreAdj},
		"ioprio":    {dst.Process.IOPriority, src.Process.IOPriority},
		"scheduler": {dst.Process.Scheduler, src.Process.Scheduler},
		"hooks":     {dst.Hooks, src.Hooks},
		"resources": {dst.Linux.Resources, src.Linux.Resources},
		"linux":     {[]any{dst.Linux.Namespaces, dst.Linux.CgroupsPath, dst.Linux.Sysctl, dst.Linux.NetDevices, dst.Linux.IntelRdt}, []any{src.Linux.Namespaces, src.Linux.CgroupsPath, src.Linux.Sysctl, src.Linux.NetDevices, src.Linux.IntelRdt}},
	} {
		t.Run(name, func(t *testing.T) { sameJSON(t, pair[0], pair[1]) })
	}
}
