// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Helpers for tests in any package whose binary calls MaybeRunChild: the
// test binary re-executes itself as the plugin, so no separate build step is
// needed.

// WriteConfig writes cfg as JSON to a new file in dir and returns its
// absolute path. Each call makes a new file, so one directory can hold the
// configs of many plugins (even of the same name).
func WriteConfig(dir string, cfg Config) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "testplugin-"+safeName(cfg.Index+"-"+cfg.Name)+"-*.json")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// safeName keeps file names made from test identities (which may be invalid
// on purpose) free of path separators.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// WriteLauncher writes the executable <pluginDir>/<idx>-<name>, a /bin/sh
// script that execs this binary as a plugin with configPath. The runtime
// starts pre-installed plugins with an environment of only the three
// NRI_* variables, so everything in the script is an absolute path and
// nothing depends on PATH. The plugin also sees GORACE (see goraceOptions) and
// the PWD that /bin/sh exports.
func WriteLauncher(pluginDir, idx, name, configPath string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if configPath, err = filepath.Abs(configPath); err != nil {
		return "", err
	}
	// The assignment's name stays unquoted, or the shell takes it for a
	// command.
	script := fmt.Sprintf("#!/bin/sh\nGORACE=%s exec %s %s %s\n",
		shellQuote(goraceOptions()), shellQuote(exe), shellQuote(ChildArg), shellQuote(configPath))
	path := filepath.Join(pluginDir, idx+"-"+name)
	// Written under a temporary name, renamed, and only then made
	// executable: a concurrent directory scan of the runtime skips files
	// without an execute bit, so it never sees a half-written plugin or the
	// temporary name (which would fail its name check).
	tmp, err := os.CreateTemp(pluginDir, ".launcher-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.WriteString(script)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Chmod(path, 0o755); err != nil {
		return "", err
	}
	return filepath.Abs(path)
}

// goraceOptions are GORACE options for plugin processes: the caller's, but
// without the race detector's one-second sleep at exit, which a race-enabled
// plugin would otherwise add to every runtime Stop in tests. Binaries built
// without -race ignore them.
func goraceOptions() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// shellQuote quotes s for /bin/sh in single quotes; a quote inside s ends
// the quoting, is added escaped, and the quoting resumes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// StartExternal starts this binary as an external plugin that dials
// cfg.SocketPath. It writes cfg to configPath first, so the file and cfg
// cannot disagree. The child's stdout and stderr go to configPath+".out".
// The caller must Wait for the command; cancelling ctx kills it.
func StartExternal(ctx context.Context, cfg Config, configPath string) (*exec.Cmd, error) {
	if cfg.SocketPath == "" {
		return nil, fmt.Errorf("%w: an external plugin needs socket_path", ErrConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(configPath, data, 0o644); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	out, err := os.OpenFile(configPath+".out", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// The child gets its own copy of the descriptor; ours is not needed once
	// it has started, and an *os.File needs no copying goroutine.
	defer out.Close()

	cmd := exec.CommandContext(ctx, exe, ChildArg, configPath)
	cmd.Env = append(externalEnv(os.Environ()), "GORACE="+goraceOptions())
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("nrikit: testplugin: start external plugin: %w", err)
	}
	return cmd, nil
}

// externalEnv drops the NRI_PLUGIN_* variables, which would make the child
// take its identity or socket from them instead of from the config, and
// GORACE, which goraceOptions replaces.
func externalEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NRI_PLUGIN_") && !strings.HasPrefix(kv, "GORACE=") {
			out = append(out, kv)
		}
	}
	return out
}
