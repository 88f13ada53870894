package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/nrikit/nrikit/api"
)

// Descriptions of what the plugins changed, one line per kind of change,
// from the merged responses the runtime gets back.

// createChanges describes a merged CreateContainer response.
func createChanges(rsp *api.CreateContainerResponse) []string {
	out := adjustmentChanges(rsp.GetAdjust())
	out = append(out, containerUpdates(rsp.GetUpdate())...)
	return append(out, evictions(rsp.GetEvict())...)
}

// updateChanges describes a merged UpdateContainer response. The updated
// container's own entry is always there; it is a change only when it differs
// from the resources the runtime asked for.
func updateChanges(id string, asked *api.LinuxResources, rsp *api.UpdateContainerResponse) []string {
	others := slices.DeleteFunc(slices.Clone(rsp.GetUpdate()), func(u *api.ContainerUpdate) bool {
		own := u.GetContainerId() == id
		return own && proto.Equal(u.GetLinux().GetResources(), asked) && !u.GetIgnoreFailure()
	})
	return append(containerUpdates(others), evictions(rsp.GetEvict())...)
}

// stopChanges describes a merged StopContainer response.
func stopChanges(rsp *api.StopContainerResponse) []string {
	return containerUpdates(rsp.GetUpdate())
}

// adjustmentChanges lists the set fields of an adjustment in field order:
// "annotations: k=v, ...", "env: K=V, ...", other fields as compact JSON.
func adjustmentChanges(adj *api.ContainerAdjustment) []string {
	if adj == nil {
		return nil
	}
	m := adj.ProtoReflect()
	fields := m.Descriptor().Fields()
	var out []string
	for i := range fields.Len() {
		fd := fields.Get(i)
		if m.Has(fd) {
			out = append(out, string(fd.Name())+": "+fieldText(m, fd))
		}
	}
	return out
}

// fieldText renders one set field of m.
func fieldText(m protoreflect.Message, fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsMap() && fd.MapValue().Kind() == protoreflect.StringKind:
		kv := map[string]string{}
		m.Get(fd).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			kv[k.String()] = v.String()
			return true
		})
		return pairs(kv)
	case fd.Name() == "env":
		var s []string
		for _, e := range m.Interface().(*api.ContainerAdjustment).GetEnv() {
			s = append(s, e.GetKey()+"="+e.GetValue())
		}
		return strings.Join(s, ", ")
	}
	only := m.Type().New()
	only.Set(fd, m.Get(fd))
	var fieldsJSON map[string]json.RawMessage
	if err := json.Unmarshal([]byte(compactJSON(only.Interface())), &fieldsJSON); err != nil || len(fieldsJSON) != 1 {
		return compactJSON(only.Interface())
	}
	for _, v := range fieldsJSON {
		return string(v)
	}
	return ""
}

// pairs renders a map as "k=v, ..." in key order.
func pairs(kv map[string]string) string {
	s := make([]string, 0, len(kv))
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		s = append(s, k+"="+kv[k])
	}
	return strings.Join(s, ", ")
}

func containerUpdates(updates []*api.ContainerUpdate) []string {
	var out []string
	for _, u := range updates {
		line := fmt.Sprintf("update %s: %s", u.GetContainerId(), compactJSON(u.GetLinux().GetResources()))
		if u.GetIgnoreFailure() {
			line += " (failure ignored)"
		}
		out = append(out, line)
	}
	return out
}

func evictions(evs []*api.ContainerEviction) []string {
	var out []string
	for _, e := range evs {
		out = append(out, fmt.Sprintf("evict %s: %s", e.GetContainerId(), e.GetReason()))
	}
	return out
}

// compactJSON renders m as one-line JSON (protojson's own output varies its
// spacing on purpose).
func compactJSON(m proto.Message) string {
	b, err := protojson.Marshal(m)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}
