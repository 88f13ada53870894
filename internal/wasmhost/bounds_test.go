// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/wasmtest"
)

// Modules of a few dozen bytes that declare counts their bytes cannot hold
// are refused before wazero decodes them: it would allocate what they
// declare, and the process would die out of memory (found by FuzzLoad).
func TestLoadRefusesModulesThatDeclareMoreThanTheyHold(t *testing.T) {
	const head = "\x00asm\x01\x00\x00\x00"
	for name, tc := range map[string]struct{ code, want string }{
		// The fuzzer's find: 2,836,538,440 function types in a 20-byte section.
		"types": {head + "\x01\x14\xc8\xc8\xc8\xc8\n\x13\x04\x04\x00B\x01\v\x04\x00A\x10\v\x02\x00\v\x04\x00B\x00\x03",
			"section 1: count 2836538440 larger than the 15 bytes that follow at offset 15"},
		"export name": {head + "\x07\x06\x01\xff\xff\xff\xff\x0f", "section 7: count 4294967295 larger than the 0 bytes that follow at offset 16"},
		"locals": {head + "\x0a\x09\x01\x07\x01\xff\xff\xff\xff\x0f\x7f",
			"section 10: a function declares 4294967295 locals, more than 50000 at offset 19"},
		"table":   {head + "\x04\x08\x01\x70\x00\xff\xff\xff\xff\x0f", "section 4: a table of 4294967295 elements, more than 1048576 at offset 18"},
		"section": {head + "\x01\xff\xff\xff\xff\x0f", "section 1 of 4294967295 bytes at offset 14 runs past the end of the module"},
		"data": {head + "\x0b\x09\x01\x00\x41\x00\x0b\xff\xff\xff\x0f",
			"section 11: count 33554431 larger than the 0 bytes that follow at offset 19"},
	} {
		path := writeModule(t, name, []byte(tc.code))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g, err := Load(context.Background(), Config{ID: "10-" + name, Path: path})
		runtime.ReadMemStats(&after)
		if err == nil {
			g.Close()
			t.Fatalf("%s: loaded", name)
		}
		if !strings.HasSuffix(err.Error(), tc.want) || !strings.Contains(err.Error(), "malformed module") {
			t.Errorf("%s: error %q, want it to end %q", name, err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: refusing it allocated %d bytes", name, grew)
		}
	}
}

// The checker passes what it must: a module with every kind of section the
// test guests use.
func TestCheckBoundsPassesWellFormedModules(t *testing.T) {
	for _, m := range []wasmtest.Module{
		{Version: 1, Malloc: 16},
		{Memory: true, MinPages: 1, Version: 1, Malloc: 16},
		{Memory: true, MinPages: 2, MaxPages: 300, HasMax: true, Version: -5, Malloc: 1 << 20},
	} {
		if err := checkBounds(m.Bytes()); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
}
