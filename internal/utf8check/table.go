// SPDX-License-Identifier: Apache-2.0

package utf8check

import (
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// table is what a walk needs of a message descriptor: which field numbers
// can hold strings, looked up without the descriptor's interface calls and
// maps, which cost more than the walk itself.
type table struct {
	dense  []*field // by field number, for small numbers
	sparse map[protowire.Number]*field
}

// field is one field that can hold a string.
type field struct {
	fd   protoreflect.FieldDescriptor
	kind fieldKind
	sub  *table // of the message, or of the map entry
}

type fieldKind uint8

const (
	kindString fieldKind = iota
	kindMessage
	kindMap
)

// maxDense bounds the slice part of a table; nrikit's own additions use
// high field numbers, which go to the map.
const maxDense = 64

func (t *table) field(num protowire.Number) *field {
	if num < maxDense {
		if int(num) < len(t.dense) {
			return t.dense[num]
		}
		return nil
	}
	return t.sparse[num]
}

// tables caches a table per message type, built on first use.
var tables sync.Map // protoreflect.FullName -> *table

func tableOf(md protoreflect.MessageDescriptor) *table {
	if t, ok := tables.Load(md.FullName()); ok {
		return t.(*table)
	}
	t := build(md, map[protoreflect.FullName]*table{})
	actual, _ := tables.LoadOrStore(md.FullName(), t)
	return actual.(*table)
}

// build makes md's table and those of the messages it holds; building
// records tables in progress, so that a message that holds itself ends.
func build(md protoreflect.MessageDescriptor, building map[protoreflect.FullName]*table) *table {
	if t, ok := building[md.FullName()]; ok {
		return t
	}
	t := &table{}
	building[md.FullName()] = t
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := &field{fd: fd}
		switch {
		case fd.IsMap():
			f.kind, f.sub = kindMap, build(fd.Message(), building)
		case fd.Kind() == protoreflect.StringKind:
			f.kind = kindString
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			f.kind, f.sub = kindMessage, build(fd.Message(), building)
		default:
			continue
		}
		t.add(fd.Number(), f)
	}
	return t
}

func (t *table) add(num protowire.Number, f *field) {
	if num >= maxDense {
		if t.sparse == nil {
			t.sparse = map[protowire.Number]*field{}
		}
		t.sparse[num] = f
		return
	}
	for int(num) >= len(t.dense) {
		t.dense = append(t.dense, nil)
	}
	t.dense[num] = f
}
