//go:build unix

package launch

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	}
	for _, name := range []string{"1-x", "abc-x", "100-x", "ab-x", "10-", "10x"} {
		writeFile(t, dir, name, "", 0o755)
	}
	writeFile(t, dir, "50-noexec", "", 0o644)
	symlink(t, writeFile(t, other, "noexec", "", 0o644), filepath.Join(dir, "51-linknoexec"))
	writeFile(t, dir, "52-private", "", 0o600)
	writeFile(t, dir, "53-noperm", "", 0)
	symlink(t, filepath.Join(other, "gone"), filepath.Join(dir, "60-dangling"))
	writeFile(t, dir, "70-wasm", "\x00asm\x01\x00\x00\x00rest", 0o755)
	writeFile(t, dir, "71-almostwasm", "\x00asm\x02\x00\x00\x00", 0o755)

	found, skipped, err := Discover(dir, filepath.Join(dir, "no-conf.d"))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}

	if got, want := ids(found), []string{"05-z-dash", "10-a", "20-b", "30-link", "70-wasm", "71-almostwasm"}; !reflect.DeepEqual(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	for _, c := range found {
		// Only the WebAssembly magic with version 1 makes a WASM module.
		if want := c.ID() == "70-wasm"; c.WASM != want {
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
	for _, name := range []string{"10-a", "20-a", "30-b", "40-c", "50-d"} {
		writeFile(t, dir, name, "", 0o755)
	}
	writeFile(t, conf, "10-a.conf", "only 10-a\n", 0o644) // wins over a.conf
	writeFile(t, conf, "a.conf", "every a\n", 0o644)
	writeFile(t, conf, "b.conf", "", 0o644) // exists but empty
	// A config that exists but cannot be read skips that plugin only.
	if err := os.Mkdir(filepath.Join(conf, "50-d.conf"), 0o755); err != nil {
		t.Fatal(err)
	}

	found, skipped, err := Discover(dir, conf)
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
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("configs\n got %q\nwant %q", got, want)
	}
	if len(skipped) != 1 || filepath.Base(skipped[0].Path) != "50-d" || !strings.Contains(skipped[0].Reason, "read config") {
		t.Errorf("skipped = %q, want 50-d with a config read error", skipped)
	}

	// No config directory at all: every config is empty.
	for _, confDir := range []string{"", filepath.Join(conf, "missing")} {
		found, skipped, err := Discover(dir, confDir)
		if err != nil || len(skipped) != 0 || len(found) != 5 {
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
