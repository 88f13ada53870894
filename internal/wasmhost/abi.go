// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/tetratelabs/wazero"
	wapi "github.com/tetratelabs/wazero/api"
)

// APIVersion is the guest ABI version this host speaks.
const APIVersion = 1

// errorFlag in the size half of a result marks an error string.
const errorFlag = 1 << 31

// MaxAnswer bounds a guest's answer, as ttrpc bounds a socket plugin's
// reply: the host copies it out of the guest's memory and decodes it, and
// decoded, 4 MiB of tiny repeated fields already take about 70 MB; an
// answer as large as the guest's memory ceiling would take gigabytes.
const MaxAnswer = 4 << 20

const (
	i32 = wapi.ValueTypeI32
	i64 = wapi.ValueTypeI64
)

// signature is what an export must look like.
type signature struct{ params, results []wapi.ValueType }

var (
	sigVersion = signature{nil, []wapi.ValueType{i64}}
	sigMalloc  = signature{[]wapi.ValueType{i32}, []wapi.ValueType{i32}}
	sigFree    = signature{[]wapi.ValueType{i32}, nil}
	sigMethod  = signature{[]wapi.ValueType{i32, i32}, []wapi.ValueType{i64}}
)

// Exports of the guest ABI. Methods not in required may be missing: a guest
// built on an older API lacks the dedicated lifecycle calls.
const (
	exportVersion = "plugin_api_version"
	exportMalloc  = "malloc"
	exportFree    = "free"
)

var required = []string{exportVersion, exportMalloc, exportFree, "plugin_configure"}

// checkExports verifies the exports a guest must have and the signature of
// every ABI export it has, before anything of it runs.
func checkExports(cm wazero.CompiledModule) error {
	exports := cm.ExportedFunctions()
	for _, name := range required {
		if exports[name] == nil {
			return fmt.Errorf("not an NRI plugin: it does not export %s", name)
		}
	}
	for name, def := range exports {
		want, ok := abiSignature(name)
		if !ok {
			continue
		}
		if !sameTypes(def.ParamTypes(), want.params) || !sameTypes(def.ResultTypes(), want.results) {
			return fmt.Errorf("export %s has signature %s, want %s", name,
				typesString(def.ParamTypes(), def.ResultTypes()), typesString(want.params, want.results))
		}
	}
	return nil
}

func abiSignature(export string) (signature, bool) {
	switch {
	case export == exportVersion:
		return sigVersion, true
	case export == exportMalloc:
		return sigMalloc, true
	case export == exportFree:
		return sigFree, true
	case len(export) > len("plugin_") && export[:len("plugin_")] == "plugin_":
		return sigMethod, true
	}
	return signature{}, false
}

func sameTypes(a, b []wapi.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func typesString(params, results []wapi.ValueType) string {
	name := func(ts []wapi.ValueType) string {
		s := "("
		for i, t := range ts {
			if i > 0 {
				s += ", "
			}
			s += wapi.ValueTypeName(t)
		}
		return s + ")"
	}
	return name(params) + " -> " + name(results)
}

// checkMemory refuses a guest without the linear memory that requests and
// answers are passed in, before anything of it runs: the host would have
// nowhere to write the first request. WASI has a module export its memory.
func checkMemory(cm wazero.CompiledModule) error {
	mems := cm.ExportedMemories()
	if len(mems) == 0 {
		return errors.New("it exports no linear memory to pass requests in")
	}
	for name, def := range mems {
		if max, ok := def.Max(); ok && max == 0 {
			return fmt.Errorf("its linear memory %q has a maximum of 0 pages: it cannot hold a request", name)
		}
	}
	return nil
}

// memoryOf is m's linear memory, nil when it has none: wazero answers a
// typed nil then, which a nil check misses.
func memoryOf(m wapi.Module) wapi.Memory {
	mem := m.Memory()
	if mem == nil {
		return nil
	}
	if v := reflect.ValueOf(mem); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return mem
}

// splitResult decodes a method's answer: where it lies in guest memory and
// whether it is an error string.
func splitResult(r uint64) (ptr, size uint32, isError bool) {
	ptr, size = uint32(r>>32), uint32(r)
	return ptr, size &^ errorFlag, size&errorFlag != 0
}
