// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	nri "github.com/nrikit/nrikit/adaptation"
)

// identityBlocks returns the TOML blocks of the operator's guide to
// identity and scopes under heading.
func identityBlocks(t *testing.T, heading string) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/identity.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("identity.md has no heading %q", heading)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	var blocks []string
	for {
		var block string
		if _, rest, ok = strings.Cut(rest, "```toml\n"); !ok {
			return blocks
		}
		block, rest, _ = strings.Cut(rest, "```")
		blocks = append(blocks, block)
	}
}

// The guide's containerd and CRI-O configs decode key for key, bind the
// names and scopes they say, and give a working Adaptation.
func TestIdentityGuideConfigs(t *testing.T) {
	blocks := identityBlocks(t, "## A containerd and a CRI-O config")
	if len(blocks) != 2 {
		t.Fatalf("%d TOML blocks, want containerd's and CRI-O's", len(blocks))
	}
	var containerd struct {
		Plugins map[string]containerdNRITable `toml:"plugins"`
	}
	decodeStrictly(t, blocks[0], &containerd)
	var crio struct {
		Crio struct {
			NRI crioNRIConfig `toml:"nri"`
		} `toml:"crio"`
	}
	decodeStrictly(t, blocks[1], &crio)
	cfg := containerd.Plugins["io.containerd.nri.v1.nri"]
	for key, s := range cfg.PluginSettings {
		c := crio.Crio.NRI.PluginSettings[key]
		if !slices.Equal(s.Allow, c.Allow) || (s.Allow == nil) != (c.Allow == nil) || s.Peer == nil || c.Peer == nil {
			t.Errorf("%s: containerd's allow %v peer %+v, CRI-O's %v %+v; want the same", key, s.Allow, s.Peer, c.Allow, c.Peer)
		}
	}
	if audit := cfg.PluginSettings["audit"]; audit.Allow == nil || len(audit.Allow) != 0 {
		t.Errorf("audit's allow = [] decodes to %#v, want empty: it may change nothing", audit.Allow)
	}
	pods := nri.WithPeerIdentity(func(context.Context, int) (nri.PeerIdentity, error) { return nri.PeerIdentity{}, nil })
	cfg.DisableConnections = true
	if _, err := nri.New("containerd", "v2", nil, nil, append(cfg.Options(), pods)...); err != nil || cfg.ExternalPlugins != nri.ExternalConfigured {
		t.Errorf("containerd's config: New = %v, external_plugins %q", err, cfg.ExternalPlugins)
	}
	c := crio.Crio.NRI
	c.DisableConnections = true
	if _, err := nri.New("cri-o", "1.37.0", nil, nil, append(c.toOptions(), pods)...); err != nil {
		t.Errorf("CRI-O's config: New = %v", err)
	}
}

// Every class of AllowClasses is documented where operators read the
// allow key: its row in configuration.md and the table of identity.md.
func TestAllowClassesDocumented(t *testing.T) {
	for _, doc := range []struct{ path, from string }{
		{"../docs/configuration.md", "| `plugin_settings.\"<key>\".allow` |"},
		{"../docs/identity.md", "| Class | What it covers |"},
	} {
		b, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		_, section, ok := strings.Cut(string(b), doc.from)
		if !ok {
			t.Fatalf("%s has no %q", doc.path, doc.from)
		}
		section, _, _ = strings.Cut(section, "\n\n")
		for _, class := range nri.AllowClasses() {
			if !strings.Contains(section, "`"+class+"`") {
				t.Errorf("%s does not document the class %s", doc.path, class)
			}
		}
	}
}
