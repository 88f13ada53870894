// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// relName is a type's name relative to its file's package, e.g.
// "LogRequest.Level".
func relName(d protoreflect.Descriptor) string {
	return strings.TrimPrefix(string(d.FullName()), string(d.ParentFile().Package())+".")
}

// counterpart finds the type of the same relative name in the other package.
func counterpart(pkg protoreflect.FullName, d protoreflect.Descriptor) protoreflect.Descriptor {
	found, err := protoregistry.GlobalFiles.FindDescriptorByName(pkg + "." + protoreflect.FullName(relName(d)))
	if err != nil {
		return nil
	}
	return found
}

// compareFiles compares every message and enum of the reference file with
// nrikit's type of the same name: field numbers, kinds, cardinalities, map
// and packed encoding, referenced type names, enum values. A difference that
// changes what goes on the wire is a failure; a different name only a
// warning, since names never travel.
func compareFiles(r *report, ours, ref protoreflect.FileDescriptor) {
	var msgs, enums, fields, values, fails = 0, 0, 0, 0, r.problems
	walkTypes(ref, func(d protoreflect.Descriptor) {
		o := counterpart(ourPackage, d)
		switch d := d.(type) {
		case protoreflect.MessageDescriptor:
			msgs++
			om, ok := o.(protoreflect.MessageDescriptor)
			if !ok {
				r.fail("types: nrikit has no message %s", relName(d))
				return
			}
			fields += compareMessage(r, om, d)
		case protoreflect.EnumDescriptor:
			enums++
			oe, ok := o.(protoreflect.EnumDescriptor)
			if !ok {
				r.fail("types: nrikit has no enum %s", relName(d))
				return
			}
			values += compareEnum(r, oe, d)
		}
	})
	walkTypes(ours, func(d protoreflect.Descriptor) {
		if counterpart(refPackage, d) == nil && !ourOnly[d.FullName()] {
			r.fail("types: nrikit's %s has no reference counterpart and is not a known addition", relName(d))
		}
	})
	if r.problems == fails {
		r.ok("types: all %d messages (%d fields) and %d enums (%d values) of %s match nrikit's %s, plus the additions %v",
			msgs, fields, enums, values, ref.Path(), ours.Path(), additionNames(ours))
	}
}

// walkTypes calls fn for every message and enum of f, nested ones included,
// except map entries.
func walkTypes(f protoreflect.FileDescriptor, fn func(protoreflect.Descriptor)) {
	var walk func(msgs protoreflect.MessageDescriptors, enums protoreflect.EnumDescriptors)
	walk = func(msgs protoreflect.MessageDescriptors, enums protoreflect.EnumDescriptors) {
		for i := 0; i < enums.Len(); i++ {
			fn(enums.Get(i))
		}
		for i := 0; i < msgs.Len(); i++ {
			m := msgs.Get(i)
			if m.IsMapEntry() {
				continue
			}
			fn(m)
			walk(m.Messages(), m.Enums())
		}
	}
	walk(f.Messages(), f.Enums())
}

func additionNames(f protoreflect.FileDescriptor) []string {
	var names []string
	walkTypes(f, func(d protoreflect.Descriptor) {
		if ourOnly[d.FullName()] {
			names = append(names, relName(d))
		}
		if m, ok := d.(protoreflect.MessageDescriptor); ok {
			for i := 0; i < m.Fields().Len(); i++ {
				if fd := m.Fields().Get(i); isAddition(fd) {
					names = append(names, fmt.Sprintf("%s.%s=%d", relName(m), fd.Name(), fd.Number()))
				}
			}
		}
	})
	return names
}

// compareMessage compares the fields of one message pair and returns how
// many reference fields it compared.
func compareMessage(r *report, ours, ref protoreflect.MessageDescriptor) int {
	where := relName(ref)
	if ours.Oneofs().Len() != 0 || ref.Oneofs().Len() != 0 {
		r.fail("%s: has oneofs (ours %d, reference %d); this checker does not fill oneofs", where, ours.Oneofs().Len(), ref.Oneofs().Len())
	}
	rf := ref.Fields()
	for i := 0; i < rf.Len(); i++ {
		f := rf.Get(i)
		o := ours.Fields().ByNumber(f.Number())
		if o == nil {
			r.fail("%s: nrikit lacks field %d (%s %s)", where, f.Number(), f.Kind(), f.Name())
			continue
		}
		compareField(r, fmt.Sprintf("%s.%s=%d", where, f.Name(), f.Number()), o, f)
	}
	of := ours.Fields()
	for i := 0; i < of.Len(); i++ {
		o := of.Get(i)
		if rf.ByNumber(o.Number()) == nil && !isAddition(o) {
			r.fail("%s: nrikit has field %d (%s %s) that the reference lacks", where, o.Number(), o.Kind(), o.Name())
		}
	}
	return rf.Len()
}

func compareField(r *report, where string, o, f protoreflect.FieldDescriptor) {
	if o.Name() != f.Name() {
		r.warn("%s: nrikit names it %s", where, o.Name())
	}
	if o.JSONName() != f.JSONName() {
		r.warn("%s: JSON name %q, reference %q", where, o.JSONName(), f.JSONName())
	}
	if o.Cardinality() != f.Cardinality() || o.IsList() != f.IsList() || o.IsMap() != f.IsMap() {
		r.fail("%s: nrikit has %s list=%v map=%v, reference %s list=%v map=%v",
			where, o.Cardinality(), o.IsList(), o.IsMap(), f.Cardinality(), f.IsList(), f.IsMap())
		return
	}
	if o.HasPresence() != f.HasPresence() {
		r.fail("%s: presence %v, reference %v", where, o.HasPresence(), f.HasPresence())
	}
	if o.IsPacked() != f.IsPacked() {
		r.fail("%s: packed %v, reference %v", where, o.IsPacked(), f.IsPacked())
	}
	if o.IsMap() {
		compareField(r, where+"[key]", o.MapKey(), f.MapKey())
		compareField(r, where+"[value]", o.MapValue(), f.MapValue())
		return
	}
	if o.Kind() != f.Kind() {
		r.fail("%s: nrikit's kind is %s, reference %s", where, o.Kind(), f.Kind())
		return
	}
	switch {
	case f.Message() != nil:
		if relName(o.Message()) != relName(f.Message()) {
			r.fail("%s: nrikit's type is %s, reference %s", where, relName(o.Message()), relName(f.Message()))
		}
	case f.Enum() != nil:
		if relName(o.Enum()) != relName(f.Enum()) {
			r.fail("%s: nrikit's enum is %s, reference %s", where, relName(o.Enum()), relName(f.Enum()))
		}
	}
}

// compareEnum compares the values of one enum pair and returns how many
// reference values it compared.
func compareEnum(r *report, ours, ref protoreflect.EnumDescriptor) int {
	where := relName(ref)
	rv, ov := ref.Values(), ours.Values()
	for i := 0; i < rv.Len(); i++ {
		v := rv.Get(i)
		o := ov.ByNumber(v.Number())
		switch {
		case o == nil:
			r.fail("%s: nrikit lacks value %d (%s)", where, v.Number(), v.Name())
		case o.Name() != v.Name():
			r.warn("%s: value %d is %s in nrikit, %s in the reference", where, v.Number(), o.Name(), v.Name())
		}
	}
	for i := 0; i < ov.Len(); i++ {
		if o := ov.Get(i); rv.ByNumber(o.Number()) == nil {
			r.fail("%s: nrikit has value %d (%s) that the reference lacks", where, o.Number(), o.Name())
		}
	}
	return rv.Len()
}
