// SPDX-License-Identifier: Apache-2.0

// --config FILE: the runtime's NRI table, to rehearse its plugin_settings, its readiness gate and the rest before a node gets them.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/nrikit/nrikit/adaptation"
)

// containerdNRITable is the NRI table's name in containerd's config.toml.
const containerdNRITable = "io.containerd.nri.v1.nri"

// loadRuntimeConfig reads the runtime's NRI table from path: containerd's
// config.toml (its [plugins."io.containerd.nri.v1.nri"] table), a TOML
// file holding that table's keys alone, or adaptation.Config's JSON form
// (a file ending in .json). A key nrikit does not read is an error, as a
// misspelt key would quietly keep its default on the node.
func loadRuntimeConfig(path string) (adaptation.Config, error) {
	var cfg adaptation.Config
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	if strings.HasSuffix(path, ".json") {
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		return cfg, dec.Decode(&cfg)
	}
	var doc struct {
		Plugins map[string]toml.Primitive `toml:"plugins"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return cfg, err
	}
	inTable := 0 // how many of an undecoded key's parts name the NRI table
	if table, ok := doc.Plugins[containerdNRITable]; ok {
		inTable = 2
		err = md.PrimitiveDecode(table, &cfg)
	} else if doc.Plugins != nil {
		return cfg, fmt.Errorf("no [plugins.%q] table: containerd's NRI table is what nritest reads", containerdNRITable)
	} else {
		md, err = toml.Decode(string(data), &cfg)
	}
	if err != nil {
		return cfg, err
	}
	for _, key := range md.Undecoded() {
		if inTable == 0 || len(key) > 2 && key[0] == "plugins" && key[1] == containerdNRITable {
			return cfg, fmt.Errorf("key %s is not one nrikit reads", strings.Join(key[inTable:], "."))
		}
	}
	return cfg, nil
}

// runtimeConfigOptions are the options of the runtime's NRI table that a
// run rehearses: every key but where plugins come from and connect, which
// nritest's own flags say, container_records (nritest keeps its own to
// attribute changes), and the timeouts (taken from the table where no flag
// set them, already in cfg). Its plugin_settings are pluginSettingsOptions'.
func runtimeConfigOptions(c adaptation.Config) []adaptation.Option {
	c.PluginSettings = nil
	c.PluginPath, c.PluginConfigPath, c.DisablePluginPath = "", "", false
	c.SocketPath, c.SocketGroup, c.DisableConnections, c.StatusSocket = "", "", false, ""
	c.WASMCompilationCacheDir, c.ContainerRecords = "", 0 // nritest keeps its own records (--no-owners)
	c.RegistrationTimeout, c.RequestTimeout, c.SyncTimeout = 0, 0, 0
	return c.Options()
}

// takeTimeouts sets the run's timeouts from the table, where no flag set
// them.
func (c *config) takeTimeouts(file adaptation.Config, set map[string]bool) {
	take := func(flag string, from adaptation.Duration, to *time.Duration) {
		if !set[flag] && from > 0 {
			*to = time.Duration(from)
		}
	}
	take("request-timeout", file.RequestTimeout, &c.requestTimeout)
	take("registration-timeout", file.RegistrationTimeout, &c.regTimeout)
	take("sync-timeout", file.SyncTimeout, &c.syncTimeout)
}
