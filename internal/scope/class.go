// SPDX-License-Identifier: Apache-2.0

// Class and Set: the names of what a plugin may change, and parsing an operator's list of them.

package scope

import (
	"fmt"
	"math/bits"
	"strings"
)

// Class is one kind of change a plugin may make.
type Class uint8

// The classes, in the order of the reference's merge: the adjustment's
// fields, then updates of containers, then evictions.
const (
	Annotations  Class = iota // adjust.annotations (adding or removing)
	Mounts                    // adjust.mounts
	Env                       // adjust.env
	Args                      // adjust.args
	Hooks                     // adjust.hooks (OCI hooks)
	Devices                   // adjust.linux.devices
	Resources                 // adjust.linux.resources; the resources of the container UpdateContainer updates
	CgroupsPath               // adjust.linux.cgroups_path
	OOMScore                  // adjust.linux.oom_score_adj
	IOPriority                // adjust.linux.io_priority
	Seccomp                   // adjust.linux.seccomp_policy
	Namespaces                // adjust.linux.namespaces
	Sysctl                    // adjust.linux.sysctl
	NetDevices                // adjust.linux.net_devices
	Scheduler                 // adjust.linux.scheduler
	RDT                       // adjust.linux.rdt
	MemoryPolicy              // adjust.linux.memory_policy
	Rlimits                   // adjust.rlimits
	CDIDevices                // adjust.CDI_devices
	Updates                   // updates of other containers: in replies, from Synchronize, unsolicited
	Evictions                 // evictions of containers
	numClasses
)

// names are the classes as an operator writes them.
var names = [numClasses]string{
	Annotations: "annotations", Mounts: "mounts", Env: "env", Args: "args", Hooks: "hooks",
	Devices: "devices", Resources: "resources", CgroupsPath: "cgroups_path", OOMScore: "oom_score",
	IOPriority: "io_priority", Seccomp: "seccomp", Namespaces: "namespaces", Sysctl: "sysctl",
	NetDevices: "net_devices", Scheduler: "scheduler", RDT: "rdt", MemoryPolicy: "memory_policy",
	Rlimits: "rlimits", CDIDevices: "cdi_devices", Updates: "updates", Evictions: "evictions",
}

// Names lists every class name, in class order, as documented.
func Names() []string { return append([]string(nil), names[:]...) }

func (c Class) String() string {
	if c < numClasses {
		return names[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Set is a set of classes: what a plugin may change. The zero Set allows
// nothing (an observe-only plugin); All allows everything.
type Set uint32

// All is every class: the scope of a plugin the operator did not limit.
const All Set = 1<<numClasses - 1

// Of is the set of the classes cs.
func Of(cs ...Class) Set {
	var s Set
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

// Has tells whether c is in s.
func (s Set) Has(c Class) bool { return s&(1<<c) != 0 }

// Classes lists the classes of s in class order.
func (s Set) Classes() []Class {
	out := make([]Class, 0, bits.OnesCount32(uint32(s&All)))
	for c := Class(0); c < numClasses; c++ {
		if s.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// Names lists the names of the classes of s in class order; never nil.
func (s Set) Names() []string {
	out := make([]string, 0, bits.OnesCount32(uint32(s&All)))
	for _, c := range s.Classes() {
		out = append(out, names[c])
	}
	return out
}

// String writes s as an operator's list: "[env annotations]".
func (s Set) String() string { return "[" + strings.Join(s.Names(), " ") + "]" }

// maxNames bounds an operator's list: a name twice is harmless, a list
// this long is a mistake.
const maxNames = 4 * int(numClasses)

// Parse reads an operator's list of class names. An empty list is the
// empty Set: the plugin may change nothing. A name that is not a class's
// fails, naming it and the classes there are.
func Parse(list []string) (Set, error) {
	if len(list) > maxNames {
		return 0, fmt.Errorf("%d names, more than %d", len(list), maxNames)
	}
	var s Set
	for _, name := range list {
		c, ok := lookup(name)
		if !ok {
			return 0, fmt.Errorf("%q is not a class of changes; the classes are %s", name, strings.Join(names[:], ", "))
		}
		s |= 1 << c
	}
	return s, nil
}

func lookup(name string) (Class, bool) {
	for c, n := range names {
		if n == name {
			return Class(c), true
		}
	}
	return 0, false
}
