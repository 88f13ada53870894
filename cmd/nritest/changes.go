// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/nrikit/nrikit/api"
)

// Descriptions of what the plugins changed, from the merged responses the
// runtime gets back: one line per kind of change and per plugin, when the
// plugin is known.

// Change is one line of what the plugins asked the runtime to change.
type Change struct {
	// Plugin is who asked for it, when known: adjustments and updates are
	// attributed from nrikit's container records (evictions are not). OCI
	// hooks accumulate, so theirs may be "10-a, 20-b".
	Plugin string     `json:"plugin,omitempty"`
	What   ChangeKind `json:"what"`
	// Container is the ID of the container changed.
	Container string `json:"container"`
	// Field is what an adjustment sets, by its name in the NRI API's
	// ContainerAdjustment ("annotations", "env") or LinuxContainerAdjustment
	// ("resources", "devices"); "resources" for an update; empty for an
	// eviction.
	Field string `json:"field,omitempty"`
	// IgnoreFailure marks an update the runtime may fail to apply.
	IgnoreFailure bool `json:"ignore_failure,omitempty"`
	// Text is the line of the text report: "annotations: k=v, ...",
	// "devices: /dev/null c 1:3 0666", "update ctr-2: cpu.shares=512".
	Text string `json:"text"`
}

// ChangeKind is what kind of change a plugin asked for.
type ChangeKind string

// Change kinds.
const (
	ChangeAdjustment ChangeKind = "adjustment" // of the container being created
	ChangeUpdate     ChangeKind = "update"     // of a container's resources
	ChangeEviction   ChangeKind = "eviction"   // of a container
)

// section is one line's worth of items: a field of an adjustment, one
// container's update or eviction.
type section struct {
	kind          ChangeKind
	ctr           string
	field         string
	ignoreFailure bool
}

// sectionOf is the section an item of an adjustment's field name is in,
// unless updates or evictions named it.
func (b *items) sectionOf(name string) section {
	if s, ok := b.sections[name]; ok {
		return s
	}
	return section{kind: ChangeAdjustment, ctr: b.ctr, field: name}
}

// createChanges describes a merged CreateContainer response for container
// id; own says which plugin set what (nil when not known).
func createChanges(id string, rsp *api.CreateContainerResponse, own *api.OwningPlugins) []Change {
	b := &items{ctr: id}
	b.adjustment(rsp.GetAdjust())
	b.updates(rsp.GetUpdate())
	b.evictions(rsp.GetEvict())
	return b.changes(own)
}

// updateChanges describes a merged UpdateContainer response; own says which
// plugin set what (nil when not known). The updated container's own entry
// is always there; it is a change only when it differs from the resources
// the runtime asked for.
func updateChanges(id string, asked *api.LinuxResources, rsp *api.UpdateContainerResponse, own *api.OwningPlugins) []Change {
	others := slices.DeleteFunc(slices.Clone(rsp.GetUpdate()), func(u *api.ContainerUpdate) bool {
		own := u.GetContainerId() == id
		return own && proto.Equal(u.GetLinux().GetResources(), asked) && !u.GetIgnoreFailure()
	})
	b := &items{ctr: id}
	b.updates(others)
	b.evictions(rsp.GetEvict())
	return b.changes(own)
}

// stopChanges describes a merged StopContainer response; own says which
// plugin set what (nil when not known).
func stopChanges(rsp *api.StopContainerResponse, own *api.OwningPlugins) []Change {
	b := &items{}
	b.updates(rsp.GetUpdate())
	return b.changes(own)
}

// item is one entry of a change: a simple field, or one entry of a
// compound field, with what it takes to look up its owner.
type item struct {
	section string    // "annotations", "resources", "update ctr-2", ...
	ctr     string    // the container it changes
	field   api.Field // Field_None: nobody owns it
	key     string    // entry key of a compound field, without removal marker
	text    string
}

// items collects the items of one response, in field order.
type items struct {
	ctr      string // the container adjusted
	list     []item
	sections map[string]section // those of updates and evictions, by name
}

// named records the section of an update or eviction line.
func (b *items) named(name string, s section) {
	if b.sections == nil {
		b.sections = map[string]section{}
	}
	b.sections[name] = s
}

func (b *items) add(section string, f api.Field, key, text string) {
	b.list = append(b.list, item{section: section, ctr: b.ctr, field: f, key: key, text: text})
}

// marked adds an entry of a list or map whose key may carry the removal
// marker "-": a removal shows as "-key", and is owned by who removed key.
func (b *items) marked(section string, f api.Field, key, text string) {
	if k, removal := strings.CutPrefix(key, "-"); removal {
		b.add(section, f, k, key)
		return
	}
	b.add(section, f, key, text)
}

// changes groups the items into lines, one per section and owner, in the
// order of their first items.
func (b *items) changes(own *api.OwningPlugins) []Change {
	type line struct{ section, plugin string }
	var order []line
	texts := map[line][]string{}
	for _, it := range b.list {
		l := line{it.section, ownerOf(own, it.ctr, it.field, it.key)}
		if _, ok := texts[l]; !ok {
			order = append(order, l)
		}
		texts[l] = append(texts[l], it.text)
	}
	out := make([]Change, len(order))
	for i, l := range order {
		sec := b.sectionOf(l.section)
		out[i] = Change{
			Plugin: l.plugin, What: sec.kind, Container: sec.ctr, Field: sec.field, IgnoreFailure: sec.ignoreFailure,
			Text: l.section + ": " + strings.Join(texts[l], ", "),
		}
	}
	return out
}

// adjustment adds the set fields of a container adjustment.
func (b *items) adjustment(adj *api.ContainerAdjustment) {
	if adj == nil {
		return
	}
	forEachSet(adj.ProtoReflect(), func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		name := string(fd.Name())
		switch name {
		case "annotations":
			b.stringMap(name, api.Field_Annotations, adj.GetAnnotations())
		case "mounts":
			for _, m := range adj.GetMounts() {
				b.marked(name, api.Field_Mounts, m.GetDestination(), mountText(m))
			}
		case "env":
			for _, kv := range adj.GetEnv() {
				b.marked(name, api.Field_Env, kv.GetKey(), kv.GetKey()+"="+kv.GetValue())
			}
		case "hooks":
			forEachSet(v.Message(), func(kind protoreflect.FieldDescriptor, hooks protoreflect.Value) {
				for i := range hooks.List().Len() {
					h := hooks.List().Get(i).Message().Interface().(*api.Hook)
					b.add(name, api.Field_OciHooks, "", string(kind.Name())+" "+hookText(h))
				}
			})
		case "linux":
			b.linux(adj.GetLinux())
		case "rlimits":
			for _, r := range adj.GetRlimits() {
				b.add(name, api.Field_Rlimits, r.GetType(), fmt.Sprintf("%s %d/%d", r.GetType(), r.GetSoft(), r.GetHard()))
			}
		case "CDI_devices":
			for _, d := range adj.GetCDIDevices() {
				b.add("cdi_devices", api.Field_CdiDevices, d.GetName(), d.GetName())
			}
		case "args":
			b.add(name, api.Field_Args, "", argsText(adj.GetArgs()))
		default:
			b.add(name, api.Field_None, "", valueText(fd, v))
		}
	})
}

// linuxSimple owns the simple fields of a Linux adjustment.
var linuxSimple = map[string]api.Field{
	"cgroups_path":   api.Field_CgroupsPath,
	"oom_score_adj":  api.Field_OomScoreAdj,
	"io_priority":    api.Field_IoPriority,
	"seccomp_policy": api.Field_SeccompPolicy,
	"scheduler":      api.Field_LinuxSched,
	"memory_policy":  api.Field_MemoryPolicy,
}

// rdtFields owns the parts of an RDT adjustment.
var rdtFields = map[string]api.Field{
	"clos_id":           api.Field_RdtClosID,
	"schemata":          api.Field_RdtSchemata,
	"enable_monitoring": api.Field_RdtEnableMonitoring,
}

// linux adds the set fields of a Linux adjustment, each under its own name.
func (b *items) linux(l *api.LinuxContainerAdjustment) {
	forEachSet(l.ProtoReflect(), func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		name := string(fd.Name())
		switch name {
		case "devices":
			for _, d := range l.GetDevices() {
				b.marked(name, api.Field_Devices, d.GetPath(), deviceText(d))
			}
		case "resources":
			b.resources(name, l.GetResources())
		case "namespaces":
			for _, n := range l.GetNamespaces() {
				b.marked(name, api.Field_Namespace, n.GetType(), namespaceText(n))
			}
		case "sysctl":
			b.stringMap(name, api.Field_Sysctl, l.GetSysctl())
		case "net_devices":
			for _, k := range markedKeys(l.GetNetDevices()) {
				b.marked(name, api.Field_LinuxNetDevices, k, k+" -> "+l.GetNetDevices()[k].GetName())
			}
		case "rdt":
			b.flatten(name, "", v.Message(), rdtFields)
		default:
			b.add(name, linuxSimple[name], "", valueText(fd, v))
		}
	})
}

// stringMap adds the entries of a string map in key order.
func (b *items) stringMap(section string, f api.Field, m map[string]string) {
	for _, k := range markedKeys(m) {
		b.marked(section, f, k, k+"="+m[k])
	}
}

// markedKeys are the keys of m in order, a removal ("-k") where k would be.
func markedKeys[V any](m map[string]V) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if c := strings.Compare(strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// updates adds each container update as a section of its own.
func (b *items) updates(updates []*api.ContainerUpdate) {
	for _, u := range updates {
		name := "update " + u.GetContainerId()
		if u.GetIgnoreFailure() {
			name += " (failure ignored)"
		}
		b.named(name, section{kind: ChangeUpdate, ctr: u.GetContainerId(), field: "resources", ignoreFailure: u.GetIgnoreFailure()})
		saved := b.ctr
		b.ctr = u.GetContainerId()
		n := len(b.list)
		b.resources(name, u.GetLinux().GetResources())
		if len(b.list) == n {
			b.add(name, api.Field_None, "", "nothing")
		}
		b.ctr = saved
	}
}

func (b *items) evictions(evs []*api.ContainerEviction) {
	for _, e := range evs {
		name := "evict " + e.GetContainerId()
		b.named(name, section{kind: ChangeEviction, ctr: e.GetContainerId()})
		b.add(name, api.Field_None, "", reasonOr(e.GetReason()))
	}
}

func reasonOr(reason string) string {
	if reason == "" {
		return "(no reason given)"
	}
	return reason
}
