// SPDX-License-Identifier: Apache-2.0

// The command line: flags, their checks, and running the chosen mode.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/nrikit/nrikit"
	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

const (
	runtimeName    = "nritest"
	runtimeVersion = nrikit.Version
	// stopGrace bounds Stop: Shutdown to every plugin, then SIGTERM/SIGKILL.
	stopGrace = 10 * time.Second
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // a plugin or an event failed, the run stopped before the lifecycle or could not start
	exitUsage  = 2
)

func main() {
	testplugin.MaybeRunChild() // a sample plugin is this binary, re-executed
	// A reader that went away (nritest | head -1) makes writes fail with
	// EPIPE instead of killing nritest: the run still stops its plugins and
	// removes its temporary directory. Notify, not Ignore: an ignored signal
	// would stay ignored in the plugins it starts.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the parsed command line.
type config struct {
	pluginPath     string
	samples        bool // neither --plugin-path nor --no-samples: run the sample plugins
	noSamples      bool
	configPath     string
	socket         string
	wait           int
	waitTimeout    time.Duration
	requestTimeout time.Duration
	regTimeout     time.Duration
	syncTimeout    time.Duration
	linger         time.Duration
	owners         bool // keep container records to attribute changes (not --no-owners)
	required       []string
	observe        []string                            // --observe: plugins run as observers
	filters        map[string]*adaptation.PluginFilter // --filter: plugins' scopes of pods
	allow          map[string][]string                 // --allow: plugin_settings key -> classes
	meta           workloadMeta
	json           bool
	verbose        bool
	version        bool
	conformance    bool
	statusOf       string // --status-of: the status socket to query
	container      string // --container: the record to fetch with --status-of
	configFile     string // --config: the runtime's NRI table
	runtimeConfig  *adaptation.Config
}

const usageText = `Usage: nritest [flags]

Runs a simulated container runtime through nrikit: it starts NRI plugins,
drives one pod with two containers through the whole lifecycle, and reports
for each event which plugins got it, in what order, how long each took, its
outcome and what the plugins changed; then the plugins and their deprecations.

With no flags, three sample plugins run as real processes: 10-logger (every
event, no changes), 20-annotator (adjusts CreateContainer) and 30-legacy
(built before NRI v0.12: takes nine events only through StateChange, which
the report lists under DEPRECATIONS). --plugin-path replaces them,
--no-samples leaves them out; --socket alone keeps them next to the
external plugins.

nritest turns on nrikit's container records, which say which plugin set
what in each CreateContainer, so that the report attributes changes;
--no-owners turns them off. The report ends with nrikit's status: each
plugin's calls per event by outcome, their latency and its last error.
--status-of PATH prints instead the status a running runtime serves on its
status socket (status_socket): readiness, each plugin's effective timeout
and failure policy and where they came from, calls, last errors (of plugins
that left too), handshakes and recent changes; with --container ID, that
container's record. It exits 1 when it cannot be reached.

--config FILE runs the lifecycle under the runtime's NRI table (containerd's
config.toml, or the table alone): its plugin_settings, plugin_readiness (the
pod waits in AwaitPlugins as a runtime's would; its required-plugins
annotation comes from --pod-annotation), default_validator and budgets, with
nritest's own plugins and socket.

--observe NAME runs a plugin as an observer (never waited for, its replies not
applied) and --filter NAME=SPEC gives it a scope of pods, as the runtime's
plugin_settings would; after each step nritest waits for the observers'
deliveries, so that the report lists them under the step.

--conformance runs a fixed script of lifecycle cases instead, and checks
every plugin (pre-installed, external or sample) against the lifecycle
contract: a pod and a container that exist before it joins, others created
after, updates, a CreateContainer that another plugin fails and one a
validator rejects, a restart of the plugin, stop without remove and remove
without stop. Per plugin it shows which events it received through which
RPC (dedicated or StateChange), whether its replies were valid, and a
verdict per case. nritest adds 99-nritest-failer (the other plugin that
fails) and restarts the plugins it started; an external plugin's restart
case is reported skipped. --linger, --no-owners and the metadata flags do
not apply.

Exit status: 1 if a plugin failed to join or was dropped, an event or a
plugin call failed, the run stopped before the lifecycle (--wait-timeout,
awaited external plugins refused, a sample that did not start, no plugin
of --plugin-path that joined, an interrupt while waiting; the report is
still printed, ending with why) or could not start; with --conformance, 1
if a plugin failed a case or no plugin was there to check; 2 on usage
errors; 0 otherwise. Skipped files (counted in the RESULT line), replaced
plugins and skipped cases are reported, not failures. Waits and each
plugin joining or refused are reported on stderr as they happen.

The first 'go run ./cmd/nritest' compiles for about 30 s; build it once
with 'go build -o nritest ./cmd/nritest' or 'go install ./cmd/nritest'.

Flags (-flag and --flag are the same):
`

// parseFlags reads args. Errors are reported on stderr with a hint, -h
// prints the full usage on stdout and returns flag.ErrHelp.
func parseFlags(args []string, stdout, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("nritest", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // its errors are printed below, as nritest's
	fs.StringVar(&c.pluginPath, "plugin-path", "", "run the pre-installed plugins in `DIR` instead of the samples (\"\" for none)")
	fs.BoolVar(&c.noSamples, "no-samples", false, "run no sample plugins (same as --plugin-path \"\")")
	fs.StringVar(&c.configPath, "plugin-config-path", "", "read the pre-installed plugins' configs from `DIR` (default: none)")
	fs.StringVar(&c.socket, "socket", "", "also accept external plugins on the unix socket `PATH` (the samples still run unless --no-samples)")
	intVar(fs, &c.wait, "wait", 0, "wait for `N` external plugins to connect before driving the lifecycle (needs --socket)")
	durationVar(fs, &c.waitTimeout, "wait-timeout", 30*time.Second, "give up waiting for external plugins after `DURATION`")
	durationVar(fs, &c.regTimeout, "registration-timeout", adaptation.DefaultRegistrationTimeout, "give a plugin `DURATION` to register once it has started or connected")
	durationVar(fs, &c.requestTimeout, "request-timeout", adaptation.DefaultRequestTimeout, "give a plugin `DURATION` for each event call, Configure and Shutdown")
	durationVar(fs, &c.syncTimeout, "sync-timeout", adaptation.DefaultSyncTimeout, "give a plugin `DURATION` for each Synchronize message when it joins")
	durationVar(fs, &c.linger, "linger", 0, "before the teardown, keep the pod and containers running for `DURATION` to collect plugins' unsolicited updates")
	fs.Var(listFlag{&c.required}, "required-plugins", "require the plugins `NAME[,NAME...]` as the default validator's required_plugins, and report their readiness")
	fs.Var(listFlag{&c.observe}, "observe", "run the plugins `NAME[,NAME...]` as observers (plugin_settings delivery = \"observe\"): never waited for, their replies not applied")
	fs.Var(filterFlag{&c.filters}, "filter", "give plugin NAME a scope of pods (plugin_settings filter), as `NAME=SPEC` with SPEC \"KEY=VALUE[,VALUE...][;KEY=...]\" and KEY one of namespaces, exclude_namespaces, runtime_handlers, pod_labels, pod_annotations; repeatable")
	fs.Var(allowFlag{&c.allow}, "allow", "let the plugin `KEY=CLASS[,CLASS...]` (\"20-annotator=env\") change only those classes, as plugin_settings allow does; once per plugin")
	noOwners := fs.Bool("no-owners", false, "keep no container records (changes are then not attributed)")
	c.meta.register(fs)
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	fs.BoolVar(&c.conformance, "conformance", false, "run the conformance script and check each plugin against the lifecycle contract (see above)")
	fs.BoolVar(&c.verbose, "v", false, "print nrikit's debug logs on stderr as they come (default: its warnings, less deprecations, after the report)")
	fs.StringVar(&c.statusOf, "status-of", "", "print the status a running runtime serves on its status socket `PATH` (status_socket) and exit; only --json and --container go with it")
	fs.StringVar(&c.container, "container", "", "with --status-of: print the record of the container `ID` instead (who changed what in it)")
	fs.StringVar(&c.configFile, "config", "", "rehearse the runtime's NRI table in `FILE` (containerd's config.toml, the table's keys alone, or Config's JSON): its plugin_settings, plugin_readiness, default_validator, budgets; not its paths or socket")
	fs.BoolVar(&c.version, "version", false, "print nritest's version (nrikit's) and the NRI version it announces, and exit")
	fs.Usage = func() {} // the flag package's error line is enough
	err := fs.Parse(args)
	if err == nil {
		err = c.check(fs.Args())
	}
	if err == nil && c.conformance {
		err = notWithConformance(fs)
	}
	if err == nil && c.statusOf != "" {
		err = onlyJSONWithStatusOf(fs)
	}
	if err == nil && c.container != "" && c.statusOf == "" {
		err = errors.New("--container needs --status-of: it asks a running runtime for the record")
	}
	if err == nil && c.configFile != "" {
		err = c.readRuntimeConfig(fs)
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "nritest: %v\n", err)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageText)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	case err != nil:
		fmt.Fprintln(stderr, "Run 'nritest -h' for usage.")
	}
	c.samples, c.owners = !c.noSamples, !*noOwners
	fs.Visit(func(f *flag.Flag) { c.samples = c.samples && f.Name != "plugin-path" })
	return c, err
}

// check rejects flag combinations that cannot work.
func (c config) check(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected argument %q", rest[0])
	case c.wait < 0:
		return errors.New("--wait must not be negative")
	case c.wait > 0 && c.socket == "":
		return errors.New("--wait needs --socket: external plugins connect there")
	case c.waitTimeout <= 0:
		return errors.New("--wait-timeout must be positive")
	case c.regTimeout <= 0:
		return errors.New("--registration-timeout must be positive")
	case c.requestTimeout <= 0:
		return errors.New("--request-timeout must be positive")
	case c.syncTimeout <= 0:
		return errors.New("--sync-timeout must be positive")
	case c.linger < 0:
		return errors.New("--linger must not be negative")
	}
	if err := checkSocketPath(c.socket); err != nil {
		return err
	}
	if err := checkDir("--plugin-path", c.pluginPath); err != nil {
		return err
	}
	return checkDir("--plugin-config-path", c.configPath)
}

// notWithConformance refuses the flags that shape the ordinary lifecycle
// run only.
func notWithConformance(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "linger", "no-owners", "required-plugins", "allow", "pod-annotation", "pod-label", "container-annotation", "container-label":
			if err == nil {
				err = fmt.Errorf("--%s does not apply to --conformance", f.Name)
			}
		}
	})
	return err
}

// readRuntimeConfig reads --config, and takes from it the timeouts no flag
// set.
func (c *config) readRuntimeConfig(fs *flag.FlagSet) error {
	file, err := loadRuntimeConfig(c.configFile)
	if err != nil {
		return fmt.Errorf("--config %s: %w", c.configFile, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c.takeTimeouts(file, set)
	c.runtimeConfig = &file
	return nil
}

// checkDir refuses a directory flag that names no directory: nrikit would
// quietly run without the plugins the user meant to test.
func checkDir(flagName, dir string) error {
	if dir == "" {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", flagName, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", flagName, dir)
	}
	return nil
}

// run is the whole command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage
	case cfg.version:
		fmt.Fprintf(stdout, "nritest %s (NRI %s, %s)\n", nrikit.Version, adaptation.Version, runtime.Version())
		return exitOK
	case cfg.statusOf != "":
		return printStatusOf(ctx, cfg.statusOf, cfg.container, cfg.json, stdout, stderr)
	}
	var quiet []string
	if cfg.conformance {
		quiet = []string{failerID}
	}
	logs := newRunLog(stderr, cfg.verbose, quiet...)
	defer logs.adoptStandardLogger()()
	if cfg.conformance {
		return finish(conform(ctx, cfg, logs.entry, stderr), cfg.json, logs, stdout, stderr)
	}
	return finish(simulate(ctx, cfg, logs.entry, stderr), cfg.json, logs, stdout, stderr)
}

// report is what a run prints: the lifecycle report or the conformance one.
type report interface {
	writeJSON(io.Writer) error
	writeText(io.Writer) error
	stopReason() string // why the run ended early; "" if it did not
	passed() bool
}

// finish prints the report of a run, however far it got (a runtime that
// could not start included), then the logs, then why the run failed; it
// returns the exit code.
func finish[R report](rep R, asJSON bool, logs *runLog, stdout, stderr io.Writer) int {
	var err error
	if asJSON {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeText(stdout)
	}
	logs.flush() // the logs come after the report; why the run failed, last
	if err != nil {
		fmt.Fprintf(stderr, "nritest: writing the report: %v\n", err)
		return exitFailed
	}
	if why := rep.stopReason(); why != "" {
		fmt.Fprintf(stderr, "nritest: %s\n", why)
	}
	if !rep.passed() {
		return exitFailed
	}
	return exitOK
}
