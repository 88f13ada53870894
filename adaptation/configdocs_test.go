// SPDX-License-Identifier: Apache-2.0

// The TOML in docs/configuration.md decodes, key for key, as containerd and CRI-O would read it.

package adaptation_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	nri "github.com/nrikit/nrikit/adaptation"
)

// containerdNRITable is containerd's NRI table in a containerd that embeds
// adaptation.Config beside its own switch.
type containerdNRITable struct {
	Disable bool `toml:"disable"`
	nri.Config
}

// tomlBlock returns the first TOML code block after heading in the
// configuration guide.
func tomlBlock(t *testing.T, heading string) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("configuration.md has no heading %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "```toml\n")
	if !ok {
		t.Fatalf("no TOML block under %q", heading)
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("the TOML block under %q does not end", heading)
	}
	return block
}

// decodeStrictly decodes block into v and fails on any key v has no field for.
func decodeStrictly(t *testing.T, block string, v any) toml.MetaData {
	t.Helper()
	md, err := toml.Decode(block, v)
	if err != nil {
		t.Fatalf("the documented TOML does not decode: %v", err)
	}
	if extra := md.Undecoded(); len(extra) > 0 {
		t.Errorf("documented keys that nothing reads: %v", extra)
	}
	return md
}

// Every key of containerd's documented table is a key of Config, every key
// of Config is documented there, and the table gives a working Adaptation.
func TestContainerdConfigDoc(t *testing.T) {
	const table = "io.containerd.nri.v1.nri"
	var file struct {
		Plugins map[string]containerdNRITable `toml:"plugins"`
	}
	md := decodeStrictly(t, tomlBlock(t, "## containerd"), &file)
	cfg, ok := file.Plugins[table]
	if !ok {
		t.Fatalf("no [plugins.%q] table", table)
	}
	documented := map[string]bool{}
	for _, k := range md.Keys() {
		documented[strings.Join(k[2:], ".")] = true
	}
	var keys struct{ M map[string]any }
	if _, err := toml.Decode(encodeTOML(t, nri.DefaultConfig()), &keys.M); err != nil {
		t.Fatal(err)
	}
	for _, key := range flatKeys("", keys.M) {
		if !documented[key] {
			t.Errorf("Config's key %s is not in the documented table", key)
		}
	}
	if s := cfg.PluginSettings["10-dranet"]; s.FailurePolicy == nil || !s.FailurePolicy.FailRequest || s.RequestTimeout == 0 || len(s.Allow) == 0 {
		t.Errorf("plugin_settings.\"10-dranet\" decodes to %+v", s)
	}
	if f := cfg.PluginSettings["30-gpu"].Filter; f == nil || !slices.Equal(f.RuntimeHandlers, []string{"nvidia"}) || cfg.PluginSettings["10-logger"].Delivery != nri.DeliveryObserve {
		t.Errorf("the rollout examples decode to %+v", cfg.PluginSettings)
	}
	cfg.DisableConnections = true // the test opens no socket
	if _, err := nri.New("containerd", "v2", nil, nil, cfg.Options()...); err != nil {
		t.Errorf("New refuses the documented table: %v", err)
	}
}

// CRI-O's documented [crio.nri] keys are the ones the porting guide's
// mapping reads, and give a working Adaptation.
func TestCRIOConfigDoc(t *testing.T) {
	var file struct {
		Crio struct {
			NRI crioNRIConfig `toml:"nri"`
		} `toml:"crio"`
	}
	decodeStrictly(t, tomlBlock(t, "## CRI-O"), &file)
	c := file.Crio.NRI
	if !c.Enabled || c.PluginRequestTimeout != nri.DefaultPluginRequestTimeout || c.PluginSettings["10-dranet"].FailurePolicy == nil || c.PluginReadiness == nil {
		t.Errorf("[crio.nri] decodes to %+v", c)
	}
	c.DisableConnections = true
	if _, err := nri.New("cri-o", "1.37.0", nil, nil, c.toOptions()...); err != nil {
		t.Errorf("New refuses the documented table: %v", err)
	}
}

func encodeTOML(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// flatKeys lists the dotted keys of a decoded TOML document, tables
// descended into, sorted.
func flatKeys(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out = append(out, flatKeys(prefix+k+".", sub)...)
			continue
		}
		out = append(out, prefix+k)
	}
	slices.Sort(out)
	return out
}
