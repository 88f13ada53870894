// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// SELinuxRelabel is the mount option asking for an SELinux relabel.
const SELinuxRelabel = "relabel"

// FromOCIMounts converts spec mounts, in order, options copied. No mounts
// (nil or empty) gives nil.
func FromOCIMounts(o []rspec.Mount) []*Mount {
	var mounts []*Mount
	for _, m := range o {
		mounts = append(mounts, &Mount{
			Destination: m.Destination, Type: m.Type, Source: m.Source,
			Options: DupStringSlice(m.Options),
		})
	}
	return mounts
}

// ToOCI converts the mount into a spec mount (options copied; nil when
// there are none). When propagationQuery is not nil it is set to the mount's
// last rprivate, rshared or rslave option, and left alone when there is
// none. A nil mount gives the zero spec mount.
func (m *Mount) ToOCI(propagationQuery *string) rspec.Mount {
	o := rspec.Mount{Destination: m.GetDestination(), Type: m.GetType(), Source: m.GetSource()}
	for _, opt := range m.GetOptions() {
		o.Options = append(o.Options, opt)
		if propagationQuery != nil && isPropagation(opt) {
			*propagationQuery = opt
		}
	}
	return o
}

func isPropagation(opt string) bool {
	return opt == "rprivate" || opt == "rshared" || opt == "rslave"
}
