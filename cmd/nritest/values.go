// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/nrikit/nrikit/api"
)

// The text of single values in the report: compact, numbers as numbers,
// file modes in octal, sizes in bytes with a binary suffix.

// resourceFields owns the values of LinuxResources, by path.
var resourceFields = map[string]api.Field{
	"memory.limit":              api.Field_MemLimit,
	"memory.reservation":        api.Field_MemReservation,
	"memory.swap":               api.Field_MemSwapLimit,
	"memory.kernel":             api.Field_MemKernelLimit,
	"memory.kernel_tcp":         api.Field_MemTCPLimit,
	"memory.swappiness":         api.Field_MemSwappiness,
	"memory.disable_oom_killer": api.Field_MemDisableOomKiller,
	"memory.use_hierarchy":      api.Field_MemUseHierarchy,
	"cpu.shares":                api.Field_CPUShares,
	"cpu.quota":                 api.Field_CPUQuota,
	"cpu.period":                api.Field_CPUPeriod,
	"cpu.realtime_runtime":      api.Field_CPURealtimeRuntime,
	"cpu.realtime_period":       api.Field_CPURealtimePeriod,
	"cpu.cpus":                  api.Field_CPUSetCPUs,
	"cpu.mems":                  api.Field_CPUSetMems,
	"blockio_class":             api.Field_BlockioClass,
	"rdt_class":                 api.Field_RdtClass,
	"unified":                   api.Field_CgroupsUnified,
	"pids.limit":                api.Field_PidsLimit,
}

// byteSizes are the resource values counted in bytes.
var byteSizes = map[string]bool{
	"memory.limit": true, "memory.reservation": true, "memory.swap": true,
	"memory.kernel": true, "memory.kernel_tcp": true,
}

// resources adds one item per set resource value: "cpu.shares=512",
// "memory.limit=256Mi", "hugepages.2MB=1Gi", "unified.memory.high=1Gi".
func (b *items) resources(section string, r *api.LinuxResources) {
	if r != nil {
		b.flatten(section, "", r.ProtoReflect(), resourceFields)
	}
}

// flatten adds one item per set value of m, as path=value, owned by
// owned[path]; an entry of a map is path.key=value, owned per key.
func (b *items) flatten(section, prefix string, m protoreflect.Message, owned map[string]api.Field) {
	forEachSet(m, func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		path := prefix + string(fd.Name())
		switch {
		case fd.IsMap():
			for _, e := range mapEntries(v.Map()) {
				b.add(section, owned[path], e.key, path+"."+e.key+"="+innerText(fd.MapValue(), e.value))
			}
		case fd.IsList():
			for i := range v.List().Len() {
				b.listEntry(section, path, fd, v.List().Get(i), owned[path])
			}
		case fd.Kind() == protoreflect.MessageKind && !isWrapper(fd.Message()):
			b.flatten(section, path+".", v.Message(), owned)
		case byteSizes[path]:
			b.add(section, owned[path], "", path+"="+sizeText(v.Message()))
		default:
			b.add(section, owned[path], "", path+"="+innerText(fd, v))
		}
	})
}

func (b *items) listEntry(section, path string, fd protoreflect.FieldDescriptor, v protoreflect.Value, f api.Field) {
	if fd.Kind() != protoreflect.MessageKind {
		b.add(section, f, "", path+"="+innerText(fd, v))
		return
	}
	switch e := v.Message().Interface().(type) {
	case *api.HugepageLimit:
		b.add(section, api.Field_HugepageLimits, e.GetPageSize(), "hugepages."+e.GetPageSize()+"="+bytesText(e.GetLimit()))
	case *api.LinuxDeviceCgroup:
		b.add(section, api.Field_None, "", "device "+cgroupDeviceText(e))
	default:
		b.add(section, f, "", path+"="+innerText(fd, v))
	}
}

// sizeText is a wrapped size in bytes.
func sizeText(m protoreflect.Message) string {
	fd := m.Descriptor().Fields().Get(0)
	switch v := m.Get(fd).Interface().(type) {
	case int64:
		if v > 0 {
			return bytesText(uint64(v))
		}
		return strconv.FormatInt(v, 10)
	case uint64:
		return bytesText(v)
	}
	return innerText(fd, m.Get(fd))
}

// bytesText is n with the largest binary suffix that divides it: 256Mi.
func bytesText(n uint64) string {
	for i, unit := range []string{"Ti", "Gi", "Mi", "Ki"} {
		size := uint64(1) << (10 * (4 - i))
		if n >= size && n%size == 0 {
			return strconv.FormatUint(n/size, 10) + unit
		}
	}
	return strconv.FormatUint(n, 10)
}

// mountText is "dst <- src (type, opts)".
func mountText(m *api.Mount) string {
	s := m.GetDestination() + " <- " + m.GetSource()
	var extra []string
	if t := m.GetType(); t != "" {
		extra = append(extra, t)
	}
	if o := m.GetOptions(); len(o) > 0 {
		extra = append(extra, strings.Join(o, ","))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// deviceText is "/dev/null c 1:3 0666", plus uid= and gid= when set.
func deviceText(d *api.LinuxDevice) string {
	s := d.GetPath()
	if t := d.GetType(); t != "" {
		s += " " + t
	}
	s += fmt.Sprintf(" %d:%d", d.GetMajor(), d.GetMinor())
	if m := d.GetFileMode(); m != nil {
		if mode := m.GetValue(); mode <= 0o7777 {
			s += fmt.Sprintf(" %04o", mode)
		} else {
			s += " " + os.FileMode(mode).String()
		}
	}
	if u := d.GetUid(); u != nil {
		s += fmt.Sprintf(" uid=%d", u.GetValue())
	}
	if g := d.GetGid(); g != nil {
		s += fmt.Sprintf(" gid=%d", g.GetValue())
	}
	return s
}

// cgroupDeviceText is a device cgroup rule: "allow c 1:3 rwm".
func cgroupDeviceText(d *api.LinuxDeviceCgroup) string {
	verb, typ := "deny", d.GetType()
	if d.GetAllow() {
		verb = "allow"
	}
	if typ == "" {
		typ = "a"
	}
	num := func(o *api.OptionalInt64) string {
		if o == nil {
			return "*"
		}
		return strconv.FormatInt(o.GetValue(), 10)
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s %s:%s %s", verb, typ, num(d.GetMajor()), num(d.GetMinor()), d.GetAccess()))
}

// namespaceText is "network=/proc/1/ns/net", or the type alone.
func namespaceText(n *api.LinuxNamespace) string {
	if n.GetPath() == "" {
		return n.GetType()
	}
	return n.GetType() + "=" + n.GetPath()
}

// hookText is the hook's path and arguments (after argv[0]), and its
// timeout when set.
func hookText(h *api.Hook) string {
	s := h.GetPath()
	if args := h.GetArgs(); len(args) > 1 {
		s += " " + argsText(args[1:])
	}
	if t := h.GetTimeout(); t != nil {
		s += fmt.Sprintf(" (timeout %ds)", t.GetValue())
	}
	return s
}

// argsText is a command line, with arguments quoted where needed.
func argsText(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = quoted(a)
	}
	return strings.Join(out, " ")
}

// quoted quotes s if it is empty or holds spaces, quotes or control
// characters.
func quoted(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '\'' || !unicode.IsPrint(r)
	}) {
		return strconv.Quote(s)
	}
	return s
}

// pairs renders a map as "k=v, ..." in key order.
func pairs(kv map[string]string) string {
	s := make([]string, 0, len(kv))
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		s = append(s, k+"="+kv[k])
	}
	return strings.Join(s, ", ")
}

// valueText renders a field of any type: a message as "name=value ..." of
// its set fields, without braces; see innerText.
func valueText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
		return messageText(v.Message(), false)
	}
	return innerText(fd, v)
}

// innerText renders a value compactly: lists as [a b], maps as {k=v},
// messages as {name=value ...}, wrappers (OptionalInt64, ...) as their
// value, enums by name, numbers as numbers.
func innerText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch {
	case fd.IsList():
		l := v.List()
		parts := make([]string, l.Len())
		for i := range l.Len() {
			parts[i] = scalarText(fd, l.Get(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case fd.IsMap():
		var parts []string
		for _, e := range mapEntries(v.Map()) {
			parts = append(parts, e.key+"="+scalarText(fd.MapValue(), e.value))
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return scalarText(fd, v)
}

func scalarText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return messageText(v.Message(), true)
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.StringKind:
		return quoted(v.String())
	case protoreflect.BytesKind:
		return fmt.Sprintf("%x", v.Bytes())
	}
	return fmt.Sprint(v.Interface())
}

// messageText renders the set fields of m, in braces when nested; a
// wrapper is its value.
func messageText(m protoreflect.Message, nested bool) string {
	if isWrapper(m.Descriptor()) {
		fd := m.Descriptor().Fields().Get(0)
		return innerText(fd, m.Get(fd))
	}
	var parts []string
	forEachSet(m, func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		parts = append(parts, string(fd.Name())+"="+innerText(fd, v))
	})
	s := strings.Join(parts, " ")
	if nested {
		return "{" + s + "}"
	}
	return s
}

// isWrapper tells an optional value (OptionalInt64, OptionalFileMode, ...)
// from other messages: it exists only to tell unset from zero.
func isWrapper(md protoreflect.MessageDescriptor) bool {
	f := md.Fields()
	return strings.HasPrefix(string(md.Name()), "Optional") && f.Len() == 1 && f.Get(0).Name() == "value"
}

// forEachSet calls fn for every set field of m, in declaration order.
func forEachSet(m protoreflect.Message, fn func(protoreflect.FieldDescriptor, protoreflect.Value)) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); m.Has(fd) {
			fn(fd, m.Get(fd))
		}
	}
}

type mapEntry struct {
	key   string
	value protoreflect.Value
}

// mapEntries are the entries of m, sorted by key.
func mapEntries(m protoreflect.Map) []mapEntry {
	var out []mapEntry
	m.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		out = append(out, mapEntry{k.String(), v})
		return true
	})
	slices.SortFunc(out, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	return out
}
