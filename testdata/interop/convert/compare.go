// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"reflect"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// The two sides' messages have identical field numbers, so one side's
// message is compared with the other's by encoding it and decoding it as the
// other side's type. Presence matters: a nil message is not an empty one.

// toRef re-decodes one of nrikit's messages as the reference type of like.
func toRef(ours proto.Message, like proto.Message) (proto.Message, error) {
	b, err := proto.Marshal(ours)
	if err != nil {
		return nil, err
	}
	m := like.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// fromRef re-decodes one of the reference's messages as nrikit's type of
// like.
func fromRef[M proto.Message](theirs proto.Message, like M) M {
	b, err := proto.Marshal(theirs)
	if err != nil {
		panic(err)
	}
	m := like.ProtoReflect().New().Interface().(M)
	if err := proto.Unmarshal(b, m); err != nil {
		panic(err)
	}
	return m
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// sameMessage compares nrikit's message with the reference's.
func sameMessage(ours, theirs proto.Message) error {
	if isNil(ours) != isNil(theirs) {
		return fmt.Errorf("nil: nrikit %v, reference %v", isNil(ours), isNil(theirs))
	}
	if isNil(ours) {
		return nil
	}
	got, err := toRef(ours, theirs)
	if err != nil {
		return err
	}
	if !proto.Equal(got, theirs) {
		return fmt.Errorf("differ:\n  nrikit:    %s\n  reference: %s", text(got), text(theirs))
	}
	return nil
}

// sameMessages compares two lists of messages entry by entry, and whether
// each list is nil.
func sameMessages[O, R proto.Message](ours []O, theirs []R) error {
	if (ours == nil) != (theirs == nil) {
		return fmt.Errorf("list nil: nrikit %v, reference %v", ours == nil, theirs == nil)
	}
	if len(ours) != len(theirs) {
		return fmt.Errorf("length: nrikit %d, reference %d", len(ours), len(theirs))
	}
	for i := range ours {
		if err := sameMessage(ours[i], theirs[i]); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// sameMessageMaps compares two maps of messages key by key, and whether
// each map is nil.
func sameMessageMaps[O, R proto.Message](ours map[string]O, theirs map[string]R) error {
	if (ours == nil) != (theirs == nil) {
		return fmt.Errorf("map nil: nrikit %v, reference %v", ours == nil, theirs == nil)
	}
	if len(ours) != len(theirs) {
		return fmt.Errorf("length: nrikit %d, reference %d", len(ours), len(theirs))
	}
	for k, o := range ours {
		t, ok := theirs[k]
		if !ok {
			return fmt.Errorf("key %q only in nrikit's", k)
		}
		if err := sameMessage(o, t); err != nil {
			return fmt.Errorf("[%q]: %w", k, err)
		}
	}
	return nil
}

// sameValue compares plain Go values (spec types) exactly: nil and empty
// differ, as they do for a runtime that dereferences them.
func sameValue(ours, theirs any) error {
	if !reflect.DeepEqual(ours, theirs) {
		return fmt.Errorf("differ:\n  nrikit:    %s\n  reference: %s", dump(ours), dump(theirs))
	}
	return nil
}

// dump shows a value with its contents, nil (null) and empty apart.
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func text(m proto.Message) string {
	if isNil(m) {
		return "<nil>"
	}
	s := prototext.MarshalOptions{}.Format(m)
	if s == "" {
		return "{}"
	}
	return s
}
