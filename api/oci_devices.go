// SPDX-License-Identifier: Apache-2.0

package api

import (
	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// FromOCILinuxDevices converts spec devices, in order; nil file mode, UID
// and GID stay unset. No devices gives nil.
func FromOCILinuxDevices(o []rspec.LinuxDevice) []*LinuxDevice {
	var out []*LinuxDevice
	for _, d := range o {
		out = append(out, &LinuxDevice{
			Path: d.Path, Type: d.Type, Major: d.Major, Minor: d.Minor,
			FileMode: FileMode(d.FileMode), Uid: UInt32(d.UID), Gid: UInt32(d.GID),
		})
	}
	return out
}

// ToOCI converts the device into a spec device; unset file mode, UID and
// GID are nil. A nil device gives the zero spec device.
func (d *LinuxDevice) ToOCI() rspec.LinuxDevice {
	return rspec.LinuxDevice{
		Path: d.GetPath(), Type: d.GetType(), Major: d.GetMajor(), Minor: d.GetMinor(),
		FileMode: d.GetFileMode().Get(), UID: d.GetUid().Get(), GID: d.GetGid().Get(),
	}
}

// FromOCILinuxNetDevice converts one spec net device.
func FromOCILinuxNetDevice(o rspec.LinuxNetDevice) *LinuxNetDevice {
	return &LinuxNetDevice{Name: o.Name}
}

// FromOCILinuxNetDevices converts spec net devices, keyed by host device
// name. No devices (nil or empty) gives nil.
func FromOCILinuxNetDevices(o map[string]rspec.LinuxNetDevice) map[string]*LinuxNetDevice {
	if len(o) == 0 {
		return nil
	}
	out := make(map[string]*LinuxNetDevice, len(o))
	for host, d := range o {
		out[host] = FromOCILinuxNetDevice(d)
	}
	return out
}

// ToOCI converts the net device; a nil one gives the zero spec device.
func (d *LinuxNetDevice) ToOCI() rspec.LinuxNetDevice {
	return rspec.LinuxNetDevice{Name: d.GetName()}
}

// ToOCILinuxNetDevices converts net devices keyed by host device name. Nil
// gives nil; an empty map gives an empty, non-nil one.
func ToOCILinuxNetDevices(devices map[string]*LinuxNetDevice) map[string]rspec.LinuxNetDevice {
	if devices == nil {
		return nil
	}
	out := make(map[string]rspec.LinuxNetDevice, len(devices))
	for host, d := range devices {
		out[host] = d.ToOCI()
	}
	return out
}
