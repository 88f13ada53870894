// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"errors"
	"fmt"
)

// Limits of checkBounds beyond "fits in the bytes that follow". A function
// compiled by Go or TinyGo has a few hundred locals at most, a module a
// table of one entry per function; engines refuse more than 50,000 locals.
const (
	maxLocals     = 50_000
	maxTableElems = 1 << 20
)

// checkBounds walks the sections of a module before wazero decodes it, and
// refuses one that declares a count or a size its bytes cannot hold. wazero
// allocates what a module declares before it reads the elements: a 35-byte
// module declaring 2^31 function types would have it allocate hundreds of
// gigabytes, and the runtime process would die of it, which no recover
// stops. Every element takes at least one byte, so a count larger than the
// bytes left is a lie. The module's meaning is left to wazero.
func checkBounds(code []byte) error {
	r := &wreader{b: code}
	if len(code) < 8 || string(code[:4]) != "\x00asm" {
		return errors.New("not a WebAssembly module")
	}
	r.off = 8
	for r.more() {
		id := r.byte()
		size := r.u32()
		if r.err == nil && int64(size) > int64(r.left()) {
			return fmt.Errorf("section %d of %d bytes at offset %d runs past the end of the module", id, size, r.off)
		}
		if r.err != nil {
			break
		}
		sec := &wreader{b: code[:r.off+int(size)], off: r.off}
		r.off += int(size)
		if err := checkSection(id, sec); err != nil {
			return fmt.Errorf("section %d: %w", id, err)
		}
	}
	return r.err
}

func checkSection(id byte, r *wreader) error {
	switch id {
	case 0:
		if r.name() == "name" {
			checkNames(r)
		}
		return r.err
	case 8, 12: // start, data count
		r.u32()
		return r.err
	}
	each, ok := sectionEntries[id]
	if !ok {
		return nil // an unknown section: wazero refuses it
	}
	for n := r.count(); n > 0 && r.err == nil; n-- {
		each(r)
	}
	return r.err
}

// sectionEntries reads one entry of a section that is a vector.
var sectionEntries = map[byte]func(*wreader){
	1: func(r *wreader) { // type
		r.byte()
		r.skipCounted()
		r.skipCounted()
	},
	2: func(r *wreader) { // import
		r.name()
		r.name()
		switch r.byte() {
		case 0:
			r.u32()
		case 1:
			r.byte()
			r.table()
		case 2:
			r.limits()
		case 3:
			r.byte()
			r.byte()
		default:
			r.fail("unknown import kind")
		}
	},
	3: func(r *wreader) { r.u32() },                           // function
	4: func(r *wreader) { r.byte(); r.table() },               // table
	5: func(r *wreader) { r.limits() },                        // memory
	6: func(r *wreader) { r.byte(); r.byte(); r.constExpr() }, // global
	7: func(r *wreader) { r.name(); r.byte(); r.u32() },       // export
	9: func(r *wreader) { // element
		kind := r.u32()
		if kind > 7 {
			r.fail("unknown element segment kind")
			return
		}
		if kind == 2 || kind == 6 {
			r.u32() // table index
		}
		if kind&1 == 0 {
			r.constExpr() // offset
		}
		if kind&3 != 0 {
			r.byte() // element kind or reference type
		}
		for n := r.count(); n > 0 && r.err == nil; n-- {
			if kind&4 == 0 {
				r.u32()
			} else {
				r.constExpr()
			}
		}
	},
	10: func(r *wreader) { // code
		size := r.count()
		body := &wreader{b: r.b[:r.off+int(size)], off: r.off}
		r.off += int(size)
		var locals uint64
		for n := body.count(); n > 0 && body.err == nil; n-- {
			locals += uint64(body.u32())
			body.byte()
		}
		if locals > maxLocals {
			body.fail(fmt.Sprintf("a function declares %d locals, more than %d", locals, maxLocals))
		}
		r.err = body.err
	},
	11: func(r *wreader) { // data
		switch r.u32() {
		case 0:
			r.constExpr()
		case 1:
		case 2:
			r.u32()
			r.constExpr()
		default:
			r.fail("unknown data segment kind")
		}
		r.skipCounted()
	},
}

// checkNames reads the subsections of the name section that wazero decodes.
func checkNames(r *wreader) {
	for r.more() && r.err == nil {
		id := r.byte()
		size := r.count()
		sub := &wreader{b: r.b[:r.off+int(size)], off: r.off}
		r.off += int(size)
		switch id {
		case 0:
			sub.name()
		case 1:
			sub.nameMap()
		case 2:
			for n := sub.count(); n > 0 && sub.err == nil; n-- {
				sub.u32()
				sub.nameMap()
			}
		}
		r.err = sub.err
	}
}

// wreader reads a module's bytes; the first error sticks and every read
// after it returns zero.
type wreader struct {
	b   []byte
	off int
	err error
}

func (r *wreader) left() int  { return len(r.b) - r.off }
func (r *wreader) more() bool { return r.err == nil && r.off < len(r.b) }

func (r *wreader) fail(why string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at offset %d", why, r.off)
	}
}

func (r *wreader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// u32 reads an unsigned LEB128 number of at most 5 bytes.
func (r *wreader) u32() uint32 {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		b := r.byte()
		v |= uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			if v > 1<<32-1 {
				r.fail("number over 32 bits")
			}
			return uint32(v)
		}
	}
	r.fail("number over 5 bytes")
	return 0
}

// skipLEB skips a signed LEB128 number of up to n bytes.
func (r *wreader) skipLEB(n int) {
	for i := 0; i < n; i++ {
		if r.byte()&0x80 == 0 {
			return
		}
	}
	r.fail("number too long")
}

// count reads a count or a size, which must fit in the bytes left.
func (r *wreader) count() uint32 {
	n := r.u32()
	if r.err == nil && int64(n) > int64(r.left()) {
		r.fail(fmt.Sprintf("count %d larger than the %d bytes that follow", n, r.left()))
		return 0
	}
	return n
}

// skipCounted skips a vector of bytes (a name, value types, data).
func (r *wreader) skipCounted() {
	r.off += int(r.count())
}

func (r *wreader) name() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	return s
}

func (r *wreader) nameMap() {
	for n := r.count(); n > 0 && r.err == nil; n-- {
		r.u32()
		r.skipCounted()
	}
}

func (r *wreader) limits() (min uint32) {
	flag := r.byte()
	if flag > 3 {
		r.fail("unknown limits")
		return 0
	}
	min = r.u32()
	if flag&1 != 0 {
		r.u32()
	}
	return min
}

func (r *wreader) table() {
	if min := r.limits(); r.err == nil && min > maxTableElems {
		r.fail(fmt.Sprintf("a table of %d elements, more than %d", min, maxTableElems))
	}
}

// constExpr reads a constant expression: one instruction and end.
func (r *wreader) constExpr() {
	switch op := r.byte(); op {
	case 0x41: // i32.const
		r.skipLEB(5)
	case 0x42: // i64.const
		r.skipLEB(10)
	case 0x43: // f32.const
		r.skip(4)
	case 0x44: // f64.const
		r.skip(8)
	case 0x23, 0xd2: // global.get, ref.func
		r.u32()
	case 0xd0: // ref.null
		r.byte()
	case 0xfd: // v128.const
		r.u32()
		r.skip(16)
	default:
		r.fail(fmt.Sprintf("opcode %#x in a constant expression", op))
	}
	if r.byte() != 0x0b {
		r.fail("constant expression not ended")
	}
}

func (r *wreader) skip(n int) {
	if r.left() < n {
		r.fail("unexpected end")
		return
	}
	r.off += n
}
