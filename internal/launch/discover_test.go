// SPDX-License-Identifier: Apache-2.0

//go:build unix

package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFile creates dir/name with the given content and mode.
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is umasked
		t.Fatal(err)
	}
	return path
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, path string, mode uint32) {
	t.Helper()
	if err := syscall.Mkfifo(path, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, os.FileMode(mode)); err != nil { // umasked
		t.Fatal(err)
	}
}

// discoverWithin runs Discover and fails the test if it has not returned
// within waitLimit: a named pipe must never make it wait for a writer.
func discoverWithin(t *testing.T, dir, confDir string) ([]Candidate, []Skipped, error) {
	t.Helper()
	type result struct {
		found   []Candidate
		skipped []Skipped
		err     error
	}
	done := make(chan result, 1)
	go func() {
		found, skipped, err := Discover(dir, confDir)
		done <- result{found, skipped, err}
	}()
	select {
	case r := <-done:
		return r.found, r.skipped, r.err
	case <-time.After(discoverLimit):
		// The goroutine stays blocked on the pipe; its test has failed.
		t.Fatalf("Discover(%s, %s) did not return within %v", dir, confDir, discoverLimit)
		return nil, nil, nil
	}
}

// discoverLimit is far more than listing a directory takes, even under -race
// on a loaded machine.
const discoverLimit = 10 * time.Second

func ids(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID())
	}
	return out
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	dir, other := t.TempDir(), t.TempDir()
	// Created out of order: Discover must return file-name order.
	writeFile(t, dir, "20-b", "", 0o755)
	writeFile(t, dir, "10-a", "", 0o700)
	writeFile(t, dir, "05-z-dash", "", 0o001) // any one execute bit will do
	symlink(t, writeFile(t, other, "target", "", 0o755), filepath.Join(dir, "30-link"))

	// Not plugins at all: ignored without a report.
	if err := os.Mkdir(filepath.Join(dir, "40-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, other, filepath.Join(dir, "41-linkdir"))
	writeFile(t, dir, "README", "", 0o644)
	writeFile(t, dir, "foo.txt", "", 0o600)
	symlink(t, writeFile(t, other, "readme", "", 0o644), filepath.Join(dir, "notes"))

	// Meant as plugins but unusable: reported, and the rest still found.
	wantSkipped := map[string]string{
		"1-x":         `plugin file name "1-x": index "1" must be exactly 2 digits`,
		"abc-x":       `plugin file name "abc-x": index "abc" must be exactly 2 digits`,
		"100-x":       `plugin file name "100-x": index "100" must be exactly 2 digits`,
		"ab-x":        `plugin file name "ab-x": index "ab" is not [0-9][0-9]`,
		"10-":         `plugin file name "10-": name after index "10" is empty`,
		"10x":         `plugin file name "10x": missing '-'`,
		"60-dangling": `dangling symlink to "` + filepath.Join(other, "gone") + `"`,
		// Named like plugins but not executable: a forgotten chmod +x.
		"50-noexec":     `not executable (mode 0644)`,
		"51-linknoexec": `not executable (mode 0644)`,
		"52-private":    `not executable (mode 0600)`,
		"53-noperm":     `not executable (mode 0000)`,
		// A module in the plugin directory itself needs its own execute bit,
		// as in the reference; only a symlink lends it one (72-linkwasm).
		"54-wasmnoexec": `not executable (mode 0644)`,
		"55-fifo":       `not a regular file (named pipe)`,
		// External plugins' name rules hold for file names too.
		"31-a\nb": `plugin file name "31-a\nb": nrikit: invalid plugin name "a\nb": character '\n' at byte 1`,
		"32-a b":  `plugin file name "32-a b": nrikit: invalid plugin name "a b": character ' ' at byte 1`,
	}
	for _, name := range []string{"1-x", "abc-x", "100-x", "ab-x", "10-", "10x"} {
		writeFile(t, dir, name, "", 0o755)
	}
	writeFile(t, dir, "50-noexec", "", 0o644)
	symlink(t, writeFile(t, other, "noexec", "", 0o644), filepath.Join(dir, "51-linknoexec"))
	writeFile(t, dir, "52-private", "", 0o600)
	writeFile(t, dir, "53-noperm", "", 0)
	symlink(t, filepath.Join(other, "gone"), filepath.Join(dir, "60-dangling"))
	writeFile(t, dir, "54-wasmnoexec", "\x00asm\x01\x00\x00\x00rest", 0o644)
	mkfifo(t, filepath.Join(dir, "55-fifo"), 0o755)
	mkfifo(t, filepath.Join(dir, "56-fifonoexec"), 0o644) // not a plugin
	writeFile(t, dir, "31-a\nb", "", 0o755)
	writeFile(t, dir, "32-a b", "", 0o755)
	writeFile(t, dir, "70-wasm", "\x00asm\x01\x00\x00\x00rest", 0o755)
	// A symlink to a module that is not executable: the reference checks
	// the link's own mode (0777), so it loads there, and here.
	symlink(t, writeFile(t, other, "module.wasm", "\x00asm\x01\x00\x00\x00rest", 0o644), filepath.Join(dir, "72-linkwasm"))
	writeFile(t, dir, "71-almostwasm", "\x00asm\x02\x00\x00\x00", 0o755)

	found, skipped, err := discoverWithin(t, dir, filepath.Join(dir, "no-conf.d"))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}

	if got, want := ids(found), []string{"05-z-dash", "10-a", "20-b", "30-link", "70-wasm", "71-almostwasm", "72-linkwasm"}; !reflect.DeepEqual(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	for _, c := range found {
		// Only the WebAssembly magic with version 1 makes a WASM module.
		if want := c.ID() == "70-wasm" || c.ID() == "72-linkwasm"; c.WASM != want {
			t.Errorf("%s: WASM = %v, want %v", c.ID(), c.WASM, want)
		}
	}
	for _, c := range found {
		if c.Path != filepath.Join(dir, c.ID()) {
			t.Errorf("%s: Path = %q, want %q", c.ID(), c.Path, filepath.Join(dir, c.ID()))
		}
		if c.Config != "" || c.ConfigPath != "" {
			t.Errorf("%s: config %q from %q, want none", c.ID(), c.Config, c.ConfigPath)
		}
	}
	if c := found[0]; c.Index != "05" || c.Name != "z-dash" {
		t.Errorf("05-z-dash split as %q, %q", c.Index, c.Name)
	}

	var prev string
	got := map[string]string{}
	for _, s := range skipped {
		base := filepath.Base(s.Path)
		if s.Path != filepath.Join(dir, base) {
			t.Errorf("skipped path %q is not in %q", s.Path, dir)
		}
		if base < prev {
			t.Errorf("skipped not in file-name order: %q after %q", base, prev)
		}
		prev = base
		got[base] = s.Reason
	}
	if len(got) != len(wantSkipped) {
		t.Errorf("skipped %v, want exactly %v", got, wantSkipped)
	}
	for name, want := range wantSkipped {
		if !strings.Contains(got[name], want) {
			t.Errorf("skipped %q: reason %q, want it to contain %q", name, got[name], want)
		}
	}
}

func TestDiscoverConfig(t *testing.T) {
	t.Parallel()
	dir, conf := t.TempDir(), t.TempDir()
	for _, name := range []string{"10-a", "20-a", "30-b", "40-c", "45-max"} {
		writeFile(t, dir, name, "", 0o755)
	}
	writeFile(t, conf, "10-a.conf", "only 10-a\n", 0o644) // wins over a.conf
	writeFile(t, conf, "a.conf", "every a\n", 0o644)
	writeFile(t, conf, "b.conf", "", 0o644) // exists but empty
	maxConf := strings.Repeat("x", MaxConfigSize)
	writeFile(t, conf, "45-max.conf", maxConf, 0o644)

	// A config that exists but cannot be used skips that plugin only, and
	// the reason names the file.
	badConf := map[string]string{ // plugin -> reason after `config file "<path>"`
		"50-d":      `: not a regular file (directory)`,
		"51-fifo":   `: not a regular file (named pipe)`,
		"52-zero":   `: not a regular file (character device)`,
		"53-big":    `: file too large: 1048577 bytes (1.0 MiB), more than the limit of 1 MiB`,
		"54-latin1": ` is not valid UTF-8 (byte 3), which NRI requires of a config`,
	}
	for name := range badConf {
		writeFile(t, dir, name, "", 0o755)
	}
	if err := os.Mkdir(filepath.Join(conf, "50-d.conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(conf, "51-fifo.conf"), 0o644) // would block os.ReadFile for ever
	symlink(t, "/dev/zero", filepath.Join(conf, "52-zero.conf"))
	writeFile(t, conf, "53-big.conf", maxConf+"x", 0o644)
	writeFile(t, conf, "54-latin1.conf", "caf\xe9=1\n", 0o644)

	found, skipped, err := discoverWithin(t, dir, conf)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	type cfg struct{ id, config, path string }
	var got []cfg
	for _, c := range found {
		got = append(got, cfg{c.ID(), c.Config, c.ConfigPath})
	}
	want := []cfg{
		{"10-a", "only 10-a\n", filepath.Join(conf, "10-a.conf")},
		{"20-a", "every a\n", filepath.Join(conf, "a.conf")},
		{"30-b", "", filepath.Join(conf, "b.conf")},
		{"40-c", "", ""},
		{"45-max", maxConf, filepath.Join(conf, "45-max.conf")}, // the limit itself is fine
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("configs\n got %.200q\nwant %.200q", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	if len(reasons) != len(badConf) {
		t.Errorf("skipped %q, want exactly %q", reasons, badConf)
	}
	for name, tail := range badConf {
		want := fmt.Sprintf("config file %q", filepath.Join(conf, name+".conf")) + tail
		if reasons[name] != want {
			t.Errorf("%s skipped for %q\n                 want %q", name, reasons[name], want)
		}
	}

	// No config directory at all: every config is empty.
	for _, confDir := range []string{"", filepath.Join(conf, "missing")} {
		found, skipped, err := Discover(dir, confDir)
		if err != nil || len(skipped) != 0 || len(found) != 5+len(badConf) {
			t.Fatalf("Discover(%q): %d found, skipped %q, %v", confDir, len(found), skipped, err)
		}
		for _, c := range found {
			if c.Config != "" || c.ConfigPath != "" {
				t.Errorf("Discover(%q): %s has config %q from %q", confDir, c.ID(), c.Config, c.ConfigPath)
			}
		}
	}
}

func TestDiscoverMissingDir(t *testing.T) {
	t.Parallel()
	found, skipped, err := Discover(filepath.Join(t.TempDir(), "none"), "")
	if err != nil || found != nil || skipped != nil {
		t.Errorf("Discover(missing) = %v, %v, %v; want no plugins and no error", found, skipped, err)
	}

	// A plugin "directory" that is a file is a configuration error.
	file := writeFile(t, t.TempDir(), "plugins", "", 0o644)
	if _, _, err := Discover(file, ""); err == nil {
		t.Errorf("Discover(file) succeeded")
	}
}

// A relative plugin directory still yields absolute paths, so argv[0] does
// not depend on the runtime's working directory.
func TestDiscoverRelativeDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "10-a", "", 0o755)
	t.Chdir(filepath.Dir(dir))
	found, _, err := Discover(filepath.Base(dir), "")
	if err != nil || len(found) != 1 {
		t.Fatalf("Discover = %v, %v", found, err)
	}
	if want := filepath.Join(dir, "10-a"); found[0].Path != want {
		t.Errorf("Path = %q, want %q", found[0].Path, want)
	}
}
