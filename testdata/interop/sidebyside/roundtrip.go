// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var marshal = proto.MarshalOptions{Deterministic: true}

// roundTrip checks one pair in both directions and prints one line for it.
func roundTrip(r *report, p pair, cov *coverage) {
	fails := r.problems
	there := trip(r, p.name()+" ours→ref→ours", p.ours, p.ref, cov)
	back := trip(r, p.name()+" ref→ours→ref", p.ref, p.ours, cov)
	if r.problems == fails {
		r.ok("%-42s ours→ref→ours %s | ref→ours→ref %s", p.name(), there, back)
	}
}

// trip fills a message of type from, encodes it, decodes it as type to,
// checks that to's view of it is the same field for field (nrikit's
// additions aside), re-encodes it, decodes it as from and checks that it is
// the original. It returns a summary for the report line.
func trip(r *report, what string, from, to protoreflect.MessageType, cov *coverage) string {
	src := from.New()
	(&filler{cov: cov}).message(src)
	b1, err := marshal.Marshal(src.Interface())
	if err != nil {
		r.fail("%s: encode: %v", what, err)
		return ""
	}
	mid := to.New()
	if err := proto.Unmarshal(b1, mid.Interface()); err != nil {
		r.fail("%s: decode %d bytes as %s: %v", what, len(b1), to.Descriptor().FullName(), err)
		return ""
	}

	// Fields the middle type did not know. Going through the reference,
	// nrikit's additions must show up here and nothing else; going through
	// nrikit, nothing may (it would be a reference field nrikit lacks).
	var kept []string
	for _, u := range unknowns(mid, src.Descriptor(), to.Descriptor().Name()) {
		if u.addition {
			kept = append(kept, u.String())
		} else {
			r.fail("%s: %s decoded %s as an unknown field: %s", what, to.Descriptor().FullName(), u, u.hint())
		}
	}

	if diff := diffValues(canonMessage(src), canonMessage(mid), ""); len(diff) > 0 {
		r.fail("%s: %s sees other values than %s sent:\n      %s", what, to.Descriptor().FullName(),
			from.Descriptor().FullName(), strings.Join(diff, "\n      "))
	}

	checkGenerated(r, what, src, to)

	b2, err := marshal.Marshal(mid.Interface())
	if err != nil {
		r.fail("%s: re-encode: %v", what, err)
		return ""
	}
	back := from.New()
	if err := proto.Unmarshal(b2, back.Interface()); err != nil {
		r.fail("%s: decode back: %v", what, err)
		return ""
	}
	if !proto.Equal(src.Interface(), back.Interface()) {
		r.fail("%s: came back different:\n      sent %v\n      got  %v", what, src, back)
	}
	if len(back.GetUnknown()) > 0 || len(unknowns(back, back.Descriptor(), "")) > 0 {
		r.fail("%s: came back with unknown fields", what)
	}
	if !bytes.Equal(b1, b2) {
		r.fail("%s: re-encoding differs: %d bytes sent, %d bytes re-encoded", what, len(b1), len(b2))
	}

	sum := fmt.Sprintf("%d B", len(b1))
	if len(kept) > 0 {
		sum += fmt.Sprintf(", reference kept %d unknown: %s", len(kept), summarize(kept))
	}
	return sum
}

// checkGenerated: when src is nrikit's and has the generated encoder
// (MarshalVT, what nrikit sends its pre-encoded requests with), the other
// side decodes that encoding to the values src has.
func checkGenerated(r *report, what string, src protoreflect.Message, to protoreflect.MessageType) {
	vt, ok := src.Interface().(interface{ MarshalVT() ([]byte, error) })
	if !ok {
		return
	}
	b, err := vt.MarshalVT()
	if err != nil {
		r.fail("%s: MarshalVT: %v", what, err)
		return
	}
	got := to.New()
	if err := proto.Unmarshal(b, got.Interface()); err != nil {
		r.fail("%s: decode MarshalVT's %d bytes as %s: %v", what, len(b), to.Descriptor().FullName(), err)
		return
	}
	if diff := diffValues(canonMessage(src), canonMessage(got), ""); len(diff) > 0 {
		r.fail("%s: %s sees other values in MarshalVT's encoding than %s has:\n      %s", what,
			to.Descriptor().FullName(), src.Descriptor().FullName(), strings.Join(diff, "\n      "))
	}
}

// summarize turns paths such as "X.pod.state(#1000)" into a short list of
// distinct field names with counts.
func summarize(paths []string) string {
	seen := map[string]int{}
	var order []string
	for _, p := range paths {
		k := p[strings.LastIndex(p, ".")+1:]
		if seen[k] == 0 {
			order = append(order, k)
		}
		seen[k]++
	}
	for i, k := range order {
		if seen[k] > 1 {
			order[i] = fmt.Sprintf("%s×%d", k, seen[k])
		}
	}
	return strings.Join(order, ",")
}

// unknownField is an unknown field found in a decoded message.
type unknownField struct {
	path     string                       // where, in field names of the decoded message
	num      protowire.Number             // its number
	sender   protoreflect.FieldDescriptor // the sender's field of that number, if any
	addition bool                         // it is one of nrikit's additions
}

func (u unknownField) String() string {
	name := "?"
	if u.sender != nil {
		name = string(u.sender.Name())
	}
	return fmt.Sprintf("%s.%s(#%d)", u.path, name, u.num)
}

func (u unknownField) hint() string {
	if u.sender == nil {
		return "the sender has no such field either"
	}
	return fmt.Sprintf("the sender's field %s is unknown to the receiver", u.sender.FullName())
}

// unknowns walks m and lists its unknown fields, naming each after the
// sender's field of that number; sender describes the message the bytes were
// encoded from.
func unknowns(m protoreflect.Message, sender protoreflect.MessageDescriptor, path protoreflect.Name) []unknownField {
	var out []unknownField
	for b := m.GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			out = append(out, unknownField{path: string(path), num: -1})
			break
		}
		k := protowire.ConsumeFieldValue(num, typ, b[n:])
		if k < 0 {
			out = append(out, unknownField{path: string(path), num: num})
			break
		}
		b = b[n+k:]
		u := unknownField{path: string(path), num: num}
		if sender != nil {
			u.sender = sender.Fields().ByNumber(num)
			u.addition = u.sender != nil && isAddition(u.sender)
		}
		out = append(out, u)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		var sfd protoreflect.FieldDescriptor
		if sender != nil {
			sfd = sender.Fields().ByNumber(fd.Number())
		}
		sub := func(s protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
			if s == nil {
				return nil
			}
			return s.Message()
		}
		name := path + "." + fd.Name()
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() == nil {
				break
			}
			var sv protoreflect.MessageDescriptor
			if sfd != nil && sfd.IsMap() {
				sv = sub(sfd.MapValue())
			}
			v.Map().Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
				out = append(out, unknowns(e.Message(), sv, protoreflect.Name(fmt.Sprintf("%s[%v]", name, k)))...)
				return true
			})
		case fd.IsList():
			if fd.Message() == nil {
				break
			}
			for i := 0; i < v.List().Len(); i++ {
				out = append(out, unknowns(v.List().Get(i).Message(), sub(sfd), protoreflect.Name(fmt.Sprintf("%s[%d]", name, i)))...)
			}
		case fd.Message() != nil:
			out = append(out, unknowns(v.Message(), sub(sfd), name)...)
		}
		return true
	})
	return out
}

// canonMessage is m's populated known fields, keyed by field number, with
// values in a form that does not depend on the Go type or the names: two
// messages that carry the same data on the wire have equal canonical forms.
// nrikit's additions are left out (the reference cannot see them).
func canonMessage(m protoreflect.Message) map[string]any {
	out := map[string]any{}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if isAddition(fd) {
			return true
		}
		key := fmt.Sprintf("#%d", fd.Number())
		switch {
		case fd.IsMap():
			mp := map[string]any{}
			v.Map().Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
				mp[canonScalar(fd.MapKey(), k.Value()).(string)] = canonValue(fd.MapValue(), e)
				return true
			})
			out[key] = mp
		case fd.IsList():
			l := make([]any, v.List().Len())
			for i := range l {
				l[i] = canonValue(fd, v.List().Get(i))
			}
			out[key] = l
		default:
			out[key] = canonValue(fd, v)
		}
		return true
	})
	return out
}

func canonValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	if fd.Message() != nil {
		return canonMessage(v.Message())
	}
	return canonScalar(fd, v)
}

func canonScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		return fmt.Sprintf("enum %d", v.Enum())
	case protoreflect.BytesKind:
		return fmt.Sprintf("bytes %x", v.Bytes())
	case protoreflect.StringKind:
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprint(v.Interface())
}

// diffValues lists the paths where two canonical forms differ.
func diffValues(a, b any, path string) []string {
	if reflect.DeepEqual(a, b) {
		return nil
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []string
		for _, k := range sorted {
			out = append(out, diffValues(a[k], b[k], path+"/"+k)...)
		}
		return out
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			break
		}
		var out []string
		for i := range a {
			out = append(out, diffValues(a[i], b[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return []string{fmt.Sprintf("%s: sent %v, received %v", path, a, b)}
}
