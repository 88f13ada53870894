// SPDX-License-Identifier: Apache-2.0

// Command modern is an NRI test peer plugin built on the reference plugin
// stub github.com/containerd/nri/pkg/stub at v0.12.5. It logs every event it
// receives as one JSON line and can be told to fail, hang or exit in chosen
// handlers. See ../README.md for the settings and the log format.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
	"github.com/containerd/ttrpc"
)

// stubVersion is the version of the reference stub this program is built on.
// It must match the requirement in go.mod.
const stubVersion = "v0.12.5"

// envPrefix prefixes the environment variable of each setting key:
// log -> NRI_INTEROP_LOG, failure_policy -> NRI_INTEROP_FAILURE_POLICY.
const envPrefix = "NRI_INTEROP_"

// settingKeys are the keys understood in the Configure config text. Each one
// is also a flag of the same name and an environment variable.
var settingKeys = []string{"log", "events", "fail", "hang", "exit", "delay", "annotation", "env", "failure_policy",
	"hook", "seccomp", "namespace", "sysctl"}

// settings is what the plugin is told to do. A value is never modified once
// it is in use: Configure builds a new one.
type settings struct {
	Log        string    // event log path; "" means stdout
	Events     eventSet  // events to subscribe to; nil means all
	Fail       eventSet  // handlers that return an error
	Hang       eventSet  // handlers that block until the request's context ends
	Exit       eventSet  // handlers that call os.Exit(3)
	Delay      delays    // handlers that wait this long (or until the request ends) first
	Annotation *keyValue // CreateContainer annotation; nil means the default
	Env        *keyValue // CreateContainer env var; nil means the default

	// FailurePolicy is sent in the ConfigureResponse when non-nil.
	FailurePolicy *api.FailurePolicy

	// Restricted adjustments CreateContainer also makes, each only when set:
	// what an operator's default validator may reject.
	Hook      string    // path of a createRuntime OCI hook to add
	Seccomp   string    // default action of a seccomp policy to set
	Namespace *keyValue // TYPE=PATH: a Linux namespace to add or replace
	Sysctl    *keyValue // KEY=VALUE: a sysctl to set
}

// keyValue is one adjustment entry. An empty Key means "add nothing".
type keyValue struct{ Key, Value string }

// set applies one key=value setting.
func (s *settings) set(key, value string) error {
	var err error
	switch key {
	case "log":
		s.Log = value
	case "events":
		if value == "all" {
			s.Events = nil
			return nil
		}
		s.Events, err = parseEvents(value, true)
	case "fail":
		s.Fail, err = parseEvents(value, false)
	case "hang":
		s.Hang, err = parseEvents(value, false)
	case "exit":
		s.Exit, err = parseEvents(value, false)
	case "delay":
		s.Delay, err = parseDelays(value)
	case "annotation":
		s.Annotation, err = parseKeyValue(value)
	case "env":
		s.Env, err = parseKeyValue(value)
	case "failure_policy":
		s.FailurePolicy, err = parseFailurePolicy(value)
	case "hook":
		s.Hook = value
	case "seccomp":
		s.Seccomp = value
	case "namespace":
		s.Namespace, err = parseKeyValue(value)
	case "sysctl":
		s.Sysctl, err = parseKeyValue(value)
	default:
		return fmt.Errorf("unknown setting %q", key)
	}
	if err != nil {
		return fmt.Errorf("setting %s: %w", key, err)
	}
	return nil
}

// parseConfig applies the Configure config text: one key=value per line,
// blank lines and lines starting with '#' ignored.
func (s *settings) parseConfig(text string) error {
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("config line %d: %q is not key=value", n+1, line)
		}
		if err := s.set(strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
			return fmt.Errorf("config line %d: %w", n+1, err)
		}
	}
	return nil
}

func parseKeyValue(value string) (*keyValue, error) {
	if value == "" {
		return &keyValue{}, nil
	}
	k, v, ok := strings.Cut(value, "=")
	if !ok || k == "" {
		return nil, fmt.Errorf("%q is not key=value", value)
	}
	return &keyValue{k, v}, nil
}

// parseFailurePolicy parses a comma list of fail_request, keep_connected and
// default (an explicit policy with both fields false).
func parseFailurePolicy(value string) (*api.FailurePolicy, error) {
	p := &api.FailurePolicy{}
	for _, f := range strings.Split(value, ",") {
		switch strings.TrimSpace(f) {
		case "fail_request":
			p.FailRequest = true
		case "keep_connected":
			p.KeepConnected = true
		case "default":
		default:
			return nil, fmt.Errorf("unknown failure policy %q", f)
		}
	}
	return p, nil
}

func formatFailurePolicy(p *api.FailurePolicy) string {
	var f []string
	if p.GetFailRequest() {
		f = append(f, "fail_request")
	}
	if p.GetKeepConnected() {
		f = append(f, "keep_connected")
	}
	if len(f) == 0 {
		return "default"
	}
	return strings.Join(f, ",")
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[0], err)
		os.Exit(1)
	}
}

func run() error {
	base := &settings{}
	for _, key := range settingKeys {
		env := envPrefix + strings.ToUpper(key)
		if value, ok := os.LookupEnv(env); ok {
			if err := base.set(key, value); err != nil {
				return fmt.Errorf("%s: %w", env, err)
			}
		}
	}

	var name, idx, socket string
	flag.StringVar(&name, "name", "", "plugin name (default: $NRI_PLUGIN_NAME or from argv[0] NN-name)")
	flag.StringVar(&idx, "idx", "", "plugin index, two digits (default: $NRI_PLUGIN_IDX or from argv[0] NN-name)")
	flag.StringVar(&socket, "socket", "", "NRI socket path to dial (default: fd $NRI_PLUGIN_SOCKET, else "+api.DefaultSocketPath+")")
	for _, key := range settingKeys {
		key := key
		flag.Func(key, "setting "+key+"=VALUE (also $"+envPrefix+strings.ToUpper(key)+")",
			func(value string) error { return base.set(key, value) })
	}
	flag.Usage = usage
	flag.Parse()
	if flag.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}

	p := newPlugin(base)
	opts := []stub.Option{
		stub.WithTTRPCOptions(nil, []ttrpc.ServerOpt{ttrpc.WithUnaryServerInterceptor(p.intercept)}),
		// The stub sends this policy in every ConfigureResponse. Configure
		// fills it in; intercept drops it again when no policy is set.
		stub.WithFailurePolicy(p.policy),
	}

	// A flag overrides the stub's environment variable. The stub refuses an
	// index option when NRI_PLUGIN_IDX is set, and prefers the fd in
	// NRI_PLUGIN_SOCKET to any socket path, so those variables are dropped.
	if idx != "" {
		os.Unsetenv(api.PluginIdxEnvVar)
		opts = append(opts, stub.WithPluginIdx(idx))
	}
	if name != "" {
		if idx == "" && os.Getenv(api.PluginIdxEnvVar) == "" {
			// Without an index the stub takes name and index from argv[0].
			return errors.New("-name needs -idx or NRI_PLUGIN_IDX")
		}
		os.Unsetenv(api.PluginNameEnvVar)
		opts = append(opts, stub.WithPluginName(name))
	}
	if socket != "" {
		os.Unsetenv(api.PluginSocketEnvVar)
		opts = append(opts, stub.WithSocketPath(socket))
	}

	s, err := stub.New(p, opts...)
	if err != nil {
		return err
	}
	p.setIdentity(s.(interface{ Name() string }).Name())
	if err := p.rec.open(base.Log); err != nil {
		return err
	}
	defer p.rec.close()

	// Run returns when the connection is gone. Depending on which part of
	// the stub notices first, a closed connection reads as ErrServerClosed
	// or as io.EOF from the stub's listener.
	err = s.Run(context.Background())
	if err == nil || errors.Is(err, ttrpc.ErrServerClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, `Usage: %s [flags]

NRI interop test plugin on the reference stub %s. It logs each event it
receives as one JSON line to the event log. The runtime's Configure config
text may carry the same settings, one key=value per line; they override
flags, which override NRI_INTEROP_* environment variables.

Settings (config key / flag / environment variable):
  log=PATH               event log file, appended to (default stdout)
  events=all|E1,E2,...   events to subscribe to (default all)
  fail=E1,...            return an error from these handlers
  hang=E1,...            block in these handlers until the request ends
  exit=E1,...            os.Exit(3) inside these handlers
  delay=E1:D1,...        wait D (a Go duration) in handler E before the rest,
                         or until the request ends
  annotation=KEY=VALUE   CreateContainer annotation ("" = none; default
                         interop.nrikit.io/<name>=%s)
  env=KEY=VALUE          CreateContainer env var ("" = none; default
                         NRIKIT_INTEROP_<NAME>=1)
  failure_policy=P,...   send a FailurePolicy: fail_request, keep_connected,
                         default (neither); unset = send none
  hook=PATH              CreateContainer adds a createRuntime OCI hook PATH
  seccomp=ACTION         CreateContainer sets a seccomp policy with this
                         default action (e.g. SCMP_ACT_ALLOW)
  namespace=TYPE=PATH    CreateContainer adds or replaces a Linux namespace
  sysctl=KEY=VALUE       CreateContainer sets a sysctl

Events: %s.
fail, hang, exit and delay also accept %s.

Flags:
`, os.Args[0], stubVersion, stubVersion, strings.Join(eventNameList()[:len(events)], ", "), strings.Join(requests, ", "))
	flag.PrintDefaults()
}
