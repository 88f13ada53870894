// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"os"
	"path"
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// nodeTypes are the device node types of the spec: char, block, unbuffered
// char, FIFO.
var nodeTypes = map[string]bool{"c": true, "b": true, "u": true, "p": true}

// planDevices converts device nodes; "-P" removes the nodes at P. Paths are
// compared cleaned, like mount destinations.
func planDevices(in []*api.LinuxDevice) (listEdit[rspec.LinuxDevice], error) {
	e, err := planList("device", in, (*api.LinuxDevice).GetPath, toOCIDevice)
	for i, p := range e.del {
		e.del[i] = path.Clean(p)
	}
	return e, err
}

func toOCIDevice(d *api.LinuxDevice) (rspec.LinuxDevice, error) {
	if !path.IsAbs(d.Path) {
		return rspec.LinuxDevice{}, invalid("device path is not absolute")
	}
	if !nodeTypes[d.Type] {
		return rspec.LinuxDevice{}, invalid("unknown device type %q", d.Type)
	}
	if d.Type != "p" && (d.Major < 0 || d.Minor < 0) {
		return rspec.LinuxDevice{}, invalid("negative device number %d:%d", d.Major, d.Minor)
	}
	o := rspec.LinuxDevice{Path: d.Path, Type: d.Type, Major: d.Major, Minor: d.Minor}
	if d.FileMode != nil {
		o.FileMode = ptr(os.FileMode(d.FileMode.Value))
	}
	if d.Uid != nil {
		o.UID = ptr(d.Uid.Value)
	}
	if d.Gid != nil {
		o.GID = ptr(d.Gid.Value)
	}
	return o, nil
}

func deviceKey(d rspec.LinuxDevice) string { return path.Clean(d.Path) }

// applyDevices edits the nodes and allows the added ones in the device
// cgroup (see the package documentation for why removals keep their rules).
func applyDevices(spec *rspec.Spec, e listEdit[rspec.LinuxDevice]) {
	if len(e.set) == 0 && (e.empty() || spec.Linux == nil) {
		return
	}
	l := ensureLinux(spec)
	l.Devices = e.apply(l.Devices, deviceKey)
	last := make(map[string]int, len(e.set))
	for i, d := range e.set {
		last[deviceKey(d)] = i
	}
	for i, d := range e.set {
		if last[deviceKey(d)] == i {
			allowDevice(spec, d)
		}
	}
}

// allowDevice appends an "rwm" allow rule for a char or block node, unless
// an identical rule already follows the last deny rule (and so is in
// force). FIFOs are not subject to the device cgroup.
func allowDevice(spec *rspec.Spec, d rspec.LinuxDevice) {
	if d.Type == "p" {
		return
	}
	typ := d.Type
	if typ == "u" {
		typ = "c"
	}
	rule := rspec.LinuxDeviceCgroup{Allow: true, Type: typ, Major: ptr(d.Major), Minor: ptr(d.Minor), Access: "rwm"}
	r := ensureResources(spec)
	for i := len(r.Devices) - 1; i >= 0 && r.Devices[i].Allow; i-- {
		if sameRule(r.Devices[i], rule) {
			return
		}
	}
	r.Devices = append(r.Devices, rule)
}

func sameRule(a, b rspec.LinuxDeviceCgroup) bool {
	return a.Allow == b.Allow && a.Type == b.Type && a.Access == b.Access &&
		sameNumber(a.Major, b.Major) && sameNumber(a.Minor, b.Minor)
}

func sameNumber(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// checkDeviceRule accepts what the device cgroup understands: type all,
// char or block (none means all), and access made of r, w and m.
func checkDeviceRule(r *api.LinuxDeviceCgroup) error {
	if r == nil {
		return invalid("nil cgroup device rule")
	}
	switch r.Type {
	case "", "a", "b", "c":
	default:
		return invalid("unknown cgroup device rule type %q", r.Type)
	}
	if strings.Trim(r.Access, "rwm") != "" {
		return invalid("cgroup device rule access %q is not made of r, w, m", r.Access)
	}
	return nil
}

func deviceRuleToOCI(r *api.LinuxDeviceCgroup) rspec.LinuxDeviceCgroup {
	o := rspec.LinuxDeviceCgroup{Allow: r.GetAllow(), Type: r.GetType(), Access: r.GetAccess()}
	if r.GetMajor() != nil {
		o.Major = ptr(r.Major.Value)
	}
	if r.GetMinor() != nil {
		o.Minor = ptr(r.Minor.Value)
	}
	return o
}
