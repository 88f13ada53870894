// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// ChildArg, as os.Args[1], makes a binary that calls MaybeRunChild run as a
// test plugin instead of doing its own job.
const ChildArg = "nrikit-testplugin"

// Environment of a plugin the runtime launched.
const (
	EnvPluginName   = "NRI_PLUGIN_NAME"
	EnvPluginIdx    = "NRI_PLUGIN_IDX"
	EnvPluginSocket = "NRI_PLUGIN_SOCKET"
)

// MaybeRunChild turns this process into a test plugin when it was started
// with ChildArg, and exits with Main's result; otherwise it returns at once.
// Call it first thing in TestMain (or main), before flags are parsed.
func MaybeRunChild() {
	if len(os.Args) > 1 && os.Args[1] == ChildArg {
		os.Exit(Main(os.Args[2:]))
	}
}

// Main runs a plugin process. args is [configPath]. The identity comes from
// NRI_PLUGIN_NAME and NRI_PLUGIN_IDX when set (a launched plugin), else from
// the config; the connection is the NRI_PLUGIN_SOCKET descriptor when set,
// else Config.SocketPath is dialled. It returns the exit code: 0 after a
// clean end (connection closed, Shutdown, SIGTERM or SIGINT), 1 when the
// plugin failed, 2 when it could not start.
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: %s %s <config.json>\n", os.Args[0], ChildArg)
		return 2
	}
	cfg, err := LoadConfig(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if cfg.Attack {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		if err := Attack(ctx, cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if cfg.Claims > 0 {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		if err := Claim(ctx, cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if name := os.Getenv(EnvPluginName); name != "" {
		cfg.Name = name
	}
	if idx := os.Getenv(EnvPluginIdx); idx != "" {
		cfg.Index = idx
	}
	if err := floodOutput(cfg.OutputFlood); err != nil {
		return 2
	}
	trunk, err := connect(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}

	// The runtime stops plugins with SIGTERM: that is a clean end too.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	for attempt := 0; ; attempt++ {
		shutdown, err := run(ctx, trunk, cfg)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", ChildArg, err)
			return 1
		}
		if shutdown || ctx.Err() != nil || attempt >= cfg.Reconnect || os.Getenv(EnvPluginSocket) != "" {
			return 0
		}
		if trunk, err = connect(cfg); err != nil { // dropped: it reconnects
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

// connect returns the trunk: the inherited socket of a launched plugin, or a
// fresh connection to the runtime's socket.
func connect(cfg Config) (net.Conn, error) {
	if s := os.Getenv(EnvPluginSocket); s != "" {
		fd, err := strconv.Atoi(s)
		if err != nil || fd < 0 {
			return nil, fmt.Errorf("nrikit: testplugin: %s=%q is not a descriptor", EnvPluginSocket, s)
		}
		f := os.NewFile(uintptr(fd), "nri-plugin-socket")
		// FileConn dups the descriptor, so the original is closed either way.
		conn, err := net.FileConn(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("nrikit: testplugin: %s=%s: %w", EnvPluginSocket, s, err)
		}
		return conn, nil
	}
	if cfg.SocketPath == "" {
		return nil, errors.New("nrikit: testplugin: no socket: neither " + EnvPluginSocket + " nor socket_path is set")
	}
	conn, err := net.Dial("unix", cfg.SocketPath)
	if err != nil {
		return nil, fmt.Errorf("nrikit: testplugin: %w", err)
	}
	return conn, nil
}

// FloodLastLine is the last line OutputFlood writes to stderr.
const FloodLastLine = "output flood over"

// floodOutput writes n bytes of short lines to stderr, then a MiB without a
// newline to stdout (see Config.OutputFlood).
func floodOutput(n int) error {
	if n <= 0 {
		return nil
	}
	lines := []byte(strings.Repeat("flooding the runtime with output\n", 1024))
	for written := 0; written < n; written += len(lines) {
		if _, err := os.Stderr.Write(lines); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(os.Stderr, FloodLastLine); err != nil {
		return err
	}
	_, err := os.Stdout.WriteString(strings.Repeat("z", 1<<20))
	return err
}
