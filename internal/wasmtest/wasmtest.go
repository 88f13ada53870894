// SPDX-License-Identifier: Apache-2.0

// Package wasmtest assembles small WebAssembly modules byte by byte for
// tests, so that they need no WASM toolchain: guests that speak just enough
// of the plugin ABI to pass or fail nrikit's load checks.
package wasmtest

// Module describes a guest exporting plugin_api_version, malloc, free and
// plugin_configure with the ABI's signatures.
type Module struct {
	// Memory declares a linear memory of MinPages; without it the module
	// has none.
	Memory bool
	// MinPages is the memory's initial size in 64 KiB pages.
	MinPages uint32
	// MaxPages, when HasMax, is the memory's declared maximum.
	MaxPages uint32
	HasMax   bool
	// Version is what plugin_api_version answers.
	Version int64
	// Malloc is the offset malloc answers, whatever the size asked.
	Malloc int32
	// Answer is what plugin_configure returns: the answer's offset in the
	// high 32 bits, its size in the low ones; 0 is an empty reply.
	Answer int64
}

// NoMemory is a module with the right exports, right signatures, API
// version 1, and no linear memory.
func NoMemory() []byte { return Module{Version: 1, Malloc: 16}.Bytes() }

// Bytes assembles the module.
func (m Module) Bytes() []byte {
	const (
		i32, i64, fn          = 0x7f, 0x7e, 0x60
		secType, secFunc, sec = 1, 3, 5
		secExport, secCode    = 7, 10
		exportFunc, exportMem = 0, 2
		opEnd, opI32, opI64   = 0x0b, 0x41, 0x42
	)
	out := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	out = section(out, secType, vec(
		[]byte{fn, 0, 1, i64},           // () -> i64
		[]byte{fn, 1, i32, 1, i32},      // (i32) -> i32
		[]byte{fn, 1, i32, 0},           // (i32) -> ()
		[]byte{fn, 2, i32, i32, 1, i64}, // (i32, i32) -> i64
	))
	out = section(out, secFunc, vec([]byte{0}, []byte{1}, []byte{2}, []byte{3}))
	exports := [][]byte{
		export("plugin_api_version", exportFunc, 0),
		export("malloc", exportFunc, 1),
		export("free", exportFunc, 2),
		export("plugin_configure", exportFunc, 3),
	}
	if m.Memory {
		limits := append([]byte{0}, uleb(m.MinPages)...)
		if m.HasMax {
			limits = append(append([]byte{1}, uleb(m.MinPages)...), uleb(m.MaxPages)...)
		}
		out = section(out, sec, vec(limits))
		exports = append(exports, export("memory", exportMem, 0))
	}
	out = section(out, secExport, vec(exports...))
	out = section(out, secCode, vec(
		body(append(append([]byte{opI64}, sleb(m.Version)...), opEnd)),
		body(append(append([]byte{opI32}, sleb(int64(m.Malloc))...), opEnd)),
		body([]byte{opEnd}),
		body(append(append([]byte{opI64}, sleb(m.Answer)...), opEnd)),
	))
	return out
}

func section(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = append(out, uleb(uint32(len(content)))...)
	return append(out, content...)
}

func vec(items ...[]byte) []byte {
	out := uleb(uint32(len(items)))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func export(name string, kind byte, index uint32) []byte {
	out := append(uleb(uint32(len(name))), name...)
	out = append(out, kind)
	return append(out, uleb(index)...)
}

// body is a function body without locals.
func body(code []byte) []byte {
	b := append([]byte{0}, code...)
	return append(uleb(uint32(len(b))), b...)
}

func uleb(v uint32) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

func sleb(v int64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v == 0 && b&0x40 == 0 || v == -1 && b&0x40 != 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}
