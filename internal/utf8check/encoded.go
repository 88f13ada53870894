// SPDX-License-Identifier: Apache-2.0

package utf8check

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Encoded returns the path of a string that is not valid UTF-8 in b, an
// encoding of a message described by md, and whether there is one. Bytes
// that do not parse end the walk with nothing found: the decoder reports
// those itself. It does not allocate unless it finds one.
func Encoded(b []byte, md protoreflect.MessageDescriptor) (path string, found bool) {
	return tableOf(md).walk(b)
}

// walk is Encoded with md's table.
func (t *table) walk(b []byte) (string, bool) {
	whole := b
	for len(b) > 0 {
		start := b
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", false
		}
		b = b[n:]
		f := t.field(num)
		if typ != protowire.BytesType || f == nil {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return "", false
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return "", false
		}
		b = b[n:]
		if in, bad := f.check(v); bad {
			name := string(f.fd.Name())
			if f.fd.IsList() {
				name = fmt.Sprintf("%s[%d]", name, occurrences(whole[:len(whole)-len(start)], num))
			}
			return name + in, true
		}
	}
	return "", false
}

// check checks one occurrence of f, whose value is v. The path it returns
// follows the field's name.
func (f *field) check(v []byte) (string, bool) {
	switch f.kind {
	case kindString:
		return "", !utf8.Valid(v)
	case kindMap:
		return f.sub.entry(v)
	}
	in, bad := f.sub.walk(v)
	return "." + in, bad
}

// entry checks one map entry (key 1, value 2); t is the entry's table.
func (t *table) entry(v []byte) (string, bool) {
	in, bad := t.walk(v)
	if !bad {
		return "", false
	}
	if in == "key" {
		return " (a key)", true
	}
	key := "?"
	if k, ok := entryKey(v); ok && utf8.Valid(k) {
		key = string(k)
	}
	return fmt.Sprintf("[%q]%s", key, in[len("value"):]), true
}

// occurrences counts the fields numbered num in b, a valid encoding: the
// index in its list of the next one. Only a failed walk needs it.
func occurrences(b []byte, num protowire.Number) int {
	count := 0
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		b = b[l:]
		if n == num {
			count++
		}
		b = b[protowire.ConsumeFieldValue(n, typ, b):]
	}
	return count
}

// entryKey is the bytes of a map entry's key, when it is a string.
func entryKey(b []byte) ([]byte, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			k, n := protowire.ConsumeBytes(b)
			return k, n >= 0
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return nil, false
		}
		b = b[n:]
	}
	return nil, false
}
