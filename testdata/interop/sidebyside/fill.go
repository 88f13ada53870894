// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"math"
	"sort"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxDepth bounds the nesting filled. The NRI schema has no recursive
// types; the bound and the recursion guard only keep a future one finite.
const maxDepth = 16

// filler sets every field of a message, recursively, to a value that is not
// the default: scalars non-zero (and chosen so that a signedness or width
// mismatch would change them), one element in lists of messages and two in
// lists of scalars (so packed encoding carries more than one value), one
// entry in maps, every message field present. Values vary with a counter,
// so that two fields of one kind never carry the same value.
type filler struct {
	n     int
	cov   *coverage
	stack []protoreflect.FullName
}

func (f *filler) message(m protoreflect.Message) {
	d := m.Descriptor()
	if len(f.stack) >= maxDepth {
		return
	}
	for _, name := range f.stack {
		if name == d.FullName() {
			return
		}
	}
	f.stack = append(f.stack, d.FullName())
	defer func() { f.stack = f.stack[:len(f.stack)-1] }()

	fields := d.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		f.cov.filled(fd)
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			key := f.scalar(fd.MapKey()).MapKey()
			if fd.MapValue().Message() != nil {
				v := mp.NewValue()
				f.message(v.Message())
				mp.Set(key, v)
			} else {
				mp.Set(key, f.scalar(fd.MapValue()))
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			if fd.Message() != nil {
				e := l.NewElement()
				f.message(e.Message())
				l.Append(e)
			} else {
				l.Append(f.scalar(fd))
				l.Append(f.scalar(fd))
			}
		case fd.Message() != nil:
			f.message(m.Mutable(fd).Message())
		default:
			m.Set(fd, f.scalar(fd))
		}
	}
}

// scalar returns the next non-default value of fd's kind.
func (f *filler) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	f.n++
	n := f.n
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if vals.Len() < 2 {
			return protoreflect.ValueOfEnum(vals.Get(0).Number())
		}
		// Any value but the first (the default).
		return protoreflect.ValueOfEnum(vals.Get(1 + n%(vals.Len()-1)).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(-int32(1_000_000 + n)) // negative: 10-byte varint
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-(1<<40 + int64(n))) // needs more than 32 bits
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(1<<31 + uint32(n)) // top bit set
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(1<<63 + uint64(n)) // top bit set
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n) + 0.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(math.Pi * float64(n))
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprintf("%s-%d-ünïcode", fd.Name(), n))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{0, 0xff, byte(n), byte(n >> 8)})
	}
	panic(fmt.Sprintf("filler: kind %s of %s", fd.Kind(), fd.FullName()))
}

// coverage records which fields the filler has set, to show that every field
// reachable from the service messages was exercised on both sides.
type coverage struct {
	set map[protoreflect.FullName]bool
}

func newCoverage() *coverage {
	return &coverage{set: map[protoreflect.FullName]bool{}}
}

func (c *coverage) filled(fd protoreflect.FieldDescriptor) { c.set[fd.FullName()] = true }

// check reports every field reachable from the pairs' messages that was
// never filled.
func (c *coverage) check(r *report, pairs []pair) {
	reachable := map[protoreflect.FullName]bool{}
	var visit func(d protoreflect.MessageDescriptor)
	visited := map[protoreflect.FullName]bool{}
	visit = func(d protoreflect.MessageDescriptor) {
		if visited[d.FullName()] {
			return
		}
		visited[d.FullName()] = true
		for i := 0; i < d.Fields().Len(); i++ {
			fd := d.Fields().Get(i)
			reachable[fd.FullName()] = true
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if fd.Message() != nil {
				visit(fd.Message())
			}
		}
	}
	for _, p := range pairs {
		visit(p.ours.Descriptor())
		visit(p.ref.Descriptor())
	}
	var missed []string
	for name := range reachable {
		if !c.set[name] {
			missed = append(missed, string(name))
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		r.fail("coverage: %d of %d reachable fields never filled: %v", len(missed), len(reachable), missed)
		return
	}
	r.ok("coverage: all %d fields reachable from the %d service message pairs were filled and round-tripped (%d message types on the two sides)",
		len(reachable), len(pairs), len(visited))
}
