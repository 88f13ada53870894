// SPDX-License-Identifier: Apache-2.0

//go:build !nrikit_no_wasm && !nri_no_wasm

package wasmhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/panics"
	"github.com/nrikit/nrikit/internal/wasmtest"
)

func writeModule(t *testing.T, name string, code []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, code, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A guest whose exports are all right but that has no linear memory to take
// a request in, or one that can never hold a byte, is refused at load with
// the reason; before, the first call wrote through a nil memory and the
// runtime process died.
func TestLoadRefusesGuestWithoutUsableMemory(t *testing.T) {
	for name, tc := range map[string]struct {
		code []byte
		want string
	}{
		"nomemory": {wasmtest.NoMemory(), "it exports no linear memory to pass requests in"},
		"zeromax": {wasmtest.Module{Memory: true, HasMax: true, Version: 1, Malloc: 16}.Bytes(),
			`its linear memory "memory" has a maximum of 0 pages: it cannot hold a request`},
	} {
		before := Live()
		path := writeModule(t, name, tc.code)
		g, err := Load(context.Background(), Config{ID: "10-" + name, Path: path})
		if err == nil {
			_, callErr := g.Call(context.Background(), "plugin_configure", []byte("request"))
			g.Close()
			t.Fatalf("%s: loaded; its first call returned %v", name, callErr)
		}
		if want := fmt.Sprintf("nrikit: WASM plugin %q: %s", path, tc.want); err.Error() != want {
			t.Errorf("%s: error %q\nwant  %q", name, err, want)
		}
		if Live() != before {
			t.Errorf("%s: the refused module left an instance open", name)
		}
	}
}

// The same guest with one page of memory loads and answers: the check
// refuses only what cannot work.
func TestLoadTakesGuestWithMemory(t *testing.T) {
	code := wasmtest.Module{Memory: true, MinPages: 1, Version: 1, Malloc: 16}.Bytes()
	g, err := Load(context.Background(), Config{ID: "10-mem", Path: writeModule(t, "mem", code)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if rsp, err := g.Call(context.Background(), "plugin_configure", []byte("request")); err != nil || len(rsp) != 0 {
		t.Errorf("call = %q, %v; want an empty reply", rsp, err)
	}
}

// A panic in the host's code during a guest call ends that guest, as a
// crash, and is returned as its error with the panic's stack; the process
// goes on.
func TestPanicInCallEndsTheGuest(t *testing.T) {
	code := wasmtest.Module{Memory: true, MinPages: 1, Version: 1, Malloc: 16}.Bytes()
	g, err := Load(context.Background(), Config{ID: "10-mem", Path: writeModule(t, "mem", code)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	defer panics.SetHook(func(place, _ string) {
		if place == "wasmhost.call" {
			panic("injected")
		}
	})()
	_, err = g.Call(context.Background(), "plugin_configure", []byte("request"))
	var crash *CrashError
	var p *panics.Error
	if !errors.As(err, &crash) || !errors.As(err, &p) || !strings.Contains(p.Stack, "callSafely") {
		t.Fatalf("call error %v, want a crash caused by the panic, with its stack", err)
	}
	if err.Error() != "nrikit: WASM plugin crashed in plugin_configure: nrikit: panic: injected" {
		t.Errorf("error %q", err)
	}
	select {
	case <-g.Dead():
	default:
		t.Fatal("the guest lives on after a panic in its call")
	}
	if g.Status() != "made the host panic" || g.Crash() == nil || !errors.As(g.Crash(), &p) {
		t.Errorf("status %q, crash %v: want the panic recorded", g.Status(), g.Crash())
	}
	if _, err := g.Call(context.Background(), "plugin_configure", nil); !errors.Is(err, ErrDead) {
		t.Errorf("next call: %v, want ErrDead", err)
	}
}

// A panic while a module is loaded fails that load, with the file named.
func TestPanicInLoadFailsTheLoad(t *testing.T) {
	code := wasmtest.Module{Memory: true, MinPages: 1, Version: 1, Malloc: 16}.Bytes()
	path := writeModule(t, "mem", code)
	defer panics.SetHook(func(place, _ string) {
		if place == "wasmhost.load" {
			panic("injected")
		}
	})()
	before := Live()
	_, err := Load(context.Background(), Config{ID: "10-mem", Path: path})
	if err == nil || !strings.Contains(err.Error(), path) || !errors.As(err, new(*panics.Error)) {
		t.Fatalf("load error %v, want the panic with the file named", err)
	}
	if Live() != before {
		t.Error("the failed load left an instance open")
	}
}

// A guest's answer over MaxAnswer is not copied out of its memory nor
// decoded: the call fails as a crash naming the size and the limit, and
// the guest is ended. One of exactly MaxAnswer is taken.
func TestAnswerOverTheLimitRefused(t *testing.T) {
	const pages = MaxAnswer/PageSize + 2
	for size, want := range map[int64]string{MaxAnswer + 1: fmt.Sprintf("answer of %d bytes is over the limit of %d", MaxAnswer+1, MaxAnswer), MaxAnswer: ""} {
		code := wasmtest.Module{Memory: true, MinPages: pages, Version: 1, Malloc: 16, Answer: 16<<32 | size}.Bytes()
		g, err := Load(context.Background(), Config{ID: "10-big", Path: writeModule(t, "big", code)})
		if err != nil {
			t.Fatal(err)
		}
		rsp, err := g.Call(context.Background(), "plugin_configure", []byte("request"))
		switch {
		case want == "" && (err != nil || len(rsp) != MaxAnswer):
			t.Errorf("answer of %d bytes: got %d bytes, %v; want it taken", size, len(rsp), err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || rsp != nil):
			t.Errorf("answer of %d bytes: got %d bytes, %v; want an error saying %q", size, len(rsp), err, want)
		}
		g.Close()
	}
}
