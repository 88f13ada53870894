// SPDX-License-Identifier: Apache-2.0

package api

import "strings"

// ToOCI returns the variable in the spec's "KEY=value" form.
func (e *KeyValue) ToOCI() string {
	return e.GetKey() + "=" + e.GetValue()
}

// FromOCIEnv splits spec "KEY=value" entries at the first '='. An entry
// without '=' becomes a key with an empty value. Nil gives nil; an empty
// list gives an empty, non-nil one.
func FromOCIEnv(in []string) []*KeyValue {
	if in == nil {
		return nil
	}
	out := make([]*KeyValue, 0, len(in))
	for _, kv := range in {
		key, value, _ := strings.Cut(kv, "=")
		out = append(out, &KeyValue{Key: key, Value: value})
	}
	return out
}
