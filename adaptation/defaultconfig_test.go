// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// configured applies a Config's options to the defaults, as New does.
func configured(t *testing.T, c Config) options {
	t.Helper()
	o := defaultOptions()
	for _, opt := range c.Options() {
		if err := opt(&o); err != nil {
			t.Fatalf("option of %+v: %v", c, err)
		}
	}
	return o
}

// settings are the options a Config can set, comparable.
func settings(o options) []any {
	return []any{o.pluginPath, o.pluginConfigPath, o.socketPath, o.disableConnect,
		o.registration, o.request, o.sync, o.failurePolicy, o.wasm}
}

func TestDefaultConfigMeansTheDefaults(t *testing.T) {
	want := settings(defaultOptions())
	if got := settings(configured(t, *DefaultConfig())); !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultConfig gives %v, want the defaults %v", got, want)
	}
	if got := settings(configured(t, Config{})); !reflect.DeepEqual(got, want) {
		t.Errorf("a zero Config gives %v, want the defaults %v", got, want)
	}
}

func TestDefaultConfigMarshalsItsValues(t *testing.T) {
	data, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"plugin_path":"/opt/nri/plugins"`,
		`"plugin_config_path":"/etc/nri/conf.d"`,
		`"socket_path":"/var/run/nri/nri.sock"`,
		`"plugin_registration_timeout":"5s"`,
		`"plugin_request_timeout":"2s"`,
		`"plugin_sync_timeout":"10s"`,
		`"default_validator":{}`,
		`"wasm_memory_limit":536870912`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("DefaultConfig marshals to %s, missing %s", data, want)
		}
	}
	var back Config
	err = json.Unmarshal(data, &back)
	// JSON leaves out the empty table and list (omitempty); TOML shows them.
	back.PluginSettings, back.PluginReadiness.ExemptNamespaces = map[string]PluginSettings{}, []string{}
	if err != nil || !reflect.DeepEqual(&back, DefaultConfig()) {
		t.Errorf("DefaultConfig does not read back: %+v, %v", back, err)
	}
}

// TestDefaultConfigPrintsEveryTable: a runtime that prints its default
// config (containerd's config default) shows the plugin_readiness table
// with its keys, plugin_settings, and container_records' default.
func TestDefaultConfigPrintsEveryTable(t *testing.T) {
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"container_records = 512", "[plugin_settings]", "[plugin_readiness]",
		`wait = "0s"`, `on_timeout = "fail"`, "exempt_namespaces = []", `setup_reserve = "2s"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the default config prints as\n%s\nwithout %s", b.String(), want)
		}
	}
}

func TestDisablePluginPath(t *testing.T) {
	for _, c := range []Config{
		{DisablePluginPath: true},
		{DisablePluginPath: true, PluginPath: "/opt/nri/plugins"}, // DefaultConfig plus the key
	} {
		if o := configured(t, c); o.pluginPath != "" {
			t.Errorf("%+v: plugin path %q, want none", c, o.pluginPath)
		}
	}
	var c Config
	if err := json.Unmarshal([]byte(`{"disable_plugin_path": true}`), &c); err != nil || !c.DisablePluginPath {
		t.Errorf("disable_plugin_path does not read: %+v, %v", c, err)
	}
}

func TestWASMConfigKeys(t *testing.T) {
	var c Config
	data := `{"wasm_memory_limit": 1048576, "wasm_compilation_cache_dir": "/var/cache/nri-wasm"}`
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatal(err)
	}
	want := wasmOptions{memoryLimit: 1 << 20, cacheDir: "/var/cache/nri-wasm"}
	if got := configured(t, c).wasm; got != want {
		t.Errorf("%s gives WASM options %+v, want %+v", data, got, want)
	}
	o := defaultOptions()
	for _, opt := range (Config{WASMMemoryLimit: 5 << 30}).Options() {
		if err := opt(&o); err != nil {
			if !strings.Contains(err.Error(), "WASM memory limit") {
				t.Errorf("a 5 GiB limit fails with %q, which does not name the setting", err)
			}
			return
		}
	}
	t.Error("a WASM memory limit of 5 GiB was accepted")
}

func TestSocketGroupConfigKey(t *testing.T) {
	var c Config
	if err := json.Unmarshal([]byte(`{"socket_group": "4321"}`), &c); err != nil || c.SocketGroup != "4321" {
		t.Fatalf("socket_group does not read: %+v, %v", c, err)
	}
	if g := configured(t, c).socketGroup; g == nil || g.GID() != 4321 {
		t.Errorf("socket_group 4321 gives %+v, want gid 4321", g)
	}
	if g := configured(t, *DefaultConfig()).socketGroup; g != nil {
		t.Errorf("the default config gives socket group %+v, want none", g)
	}
}

func TestStatusConfigKeys(t *testing.T) {
	var c Config
	data := `{"container_records": 100, "status_socket": "/run/nri/status.sock"}`
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatal(err)
	}
	o := configured(t, c)
	if o.containerRecords != 100 || o.statusSocket != "/run/nri/status.sock" {
		t.Errorf("%s gives container records %d, status socket %q", data, o.containerRecords, o.statusSocket)
	}
	// Records are on by default, at a modest cap, the status socket off.
	for name, c := range map[string]Config{"the zero config": {}, "the default config": *DefaultConfig()} {
		if d := configured(t, c); d.containerRecords != DefaultContainerRecords || d.statusSocket != "" {
			t.Errorf("%s keeps %d records and status socket %q, want %d and none", name, d.containerRecords, d.statusSocket, DefaultContainerRecords)
		}
	}
	// A negative number turns them off (0 in a file keeps the default).
	if o := configured(t, Config{ContainerRecords: -1}); o.containerRecords != 0 {
		t.Errorf("container_records -1 keeps %d records, want none", o.containerRecords)
	}
	o = defaultOptions()
	for _, opt := range (Config{ContainerRecords: MaxContainerRecords + 1}).Options() {
		if err := opt(&o); err != nil {
			if !strings.Contains(err.Error(), "container_records") {
				t.Errorf("container_records beyond the maximum fails with %q, which does not name the key", err)
			}
			return
		}
	}
	t.Error("container_records beyond the maximum was accepted")
}
