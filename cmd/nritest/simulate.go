// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
)

// simulate runs the runtime: start the plugins, wait for external ones,
// drive the lifecycle, stop, and report.
func simulate(ctx context.Context, cfg config, log *logrus.Entry, stderr io.Writer) *Report {
	rep := &Report{
		SchemaVersion: schemaVersion,
		RunSettings:   newRunSettings(cfg),
	}
	st := &store{phase: phaseStartUp}
	sess, err := startSession(ctx, cfg, log, stderr, st, cfg.owners)
	defer sess.cleanup()
	rep.PluginSource = sess.source
	if err != nil {
		return rep.notStarted(err)
	}
	a, rec, changes, deps, stop := sess.a, sess.rec, sess.changes, sess.deps, sess.stop
	defer stop()
	d := newDriver(a, st, cfg.meta)
	d.owners, d.settle = cfg.owners, cfg.settler(a)
	rep.Workload, rep.Metadata = d.workload(), d.metadata()
	var about map[string]string
	if cfg.samples {
		about = sampleAbout
	}
	// finish reports what the run observed, however far it got.
	finish := func() *Report {
		rep.Active = pluginReports(a.Plugins(), about)
		status := a.Status()
		rep.Status = &status
		rep.Deprecations = deprecationReports(deps.list())
		st.setPhase(phaseStopping)
		stop()
		rep.Outside = rec.strays()
		rep.SyncUpdates = st.syncUpdates()
		rep.Unsolicited = st.unsolicited()
		rep.PluginChanges = changes.reports()
		rep.SkippedFiles = skippedFiles(rep.PluginChanges)
		if rep.Stopped != "" {
			// Only now, once Stop has waited for them, are all replacements known.
			rep.Stopped += replacements(rep.PluginChanges)
		}
		rep.tally()
		return rep
	}
	if err := startUp(ctx, a, rec, changes, cfg, stderr); err != nil {
		rep.Stopped, rep.Events = err.Error(), []EventReport{}
		return finish()
	}
	if cfg.linger > 0 {
		d.pause = func(ctx context.Context) {
			st.setPhase(phaseLinger)
			rep.Linger = cfg.linger.String()
			if !linger(ctx, cfg.linger, stderr) {
				rep.Linger += " (interrupted)"
			}
		}
	}
	changes.lifecycleStarts()
	if gate := a.Status().Settings.PluginReadiness; len(cfg.required) > 0 || gate != nil || len(a.Readiness().Required) > 0 {
		rep.Readiness = readinessReport(a.Readiness(), gate)
	}
	rep.Events = d.drive(ctx, rec)
	return finish()
}

// notStarted is the report of a run whose runtime could not start: what
// stopped it, and empty lists.
func (r *Report) notStarted(err error) *Report {
	r.Stopped = err.Error()
	r.Events, r.Active, r.Deprecations = []EventReport{}, []PluginReport{}, []DeprecationReport{}
	r.tally()
	return r
}

// startUp checks that the plugins the run needs have joined: every sample,
// and --wait external plugins. An error ends the run before the lifecycle.
func startUp(ctx context.Context, a *adaptation.Adaptation, rec *recorder, changes *pluginChanges, cfg config, stderr io.Writer) error {
	defer func() {
		if kinds := announcedKinds(cfg); kinds != nil {
			changes.awaitJoinsAnnounced(a.Plugins(), kinds)
			changes.announce(nil, nil) // the report tells the rest
		}
	}()
	if cfg.samples {
		if err := checkSamples(a.Plugins()); err != nil {
			return err
		}
	}
	if err := checkPluginPath(cfg, a.Plugins(), changes.reports()); err != nil {
		return err
	}
	if err := waitExternal(ctx, a, rec, changes, cfg, stderr); err != nil {
		return err
	}
	cfg.settler(a)(ctx) // the observers' snapshots, before the first step
	return nil
}

// options turns the command line into adaptation options.
func options(cfg config, pluginDir string, log *logrus.Entry, rec *recorder, owners bool) []adaptation.Option {
	opts := []adaptation.Option{
		adaptation.WithPluginPath(pluginDir),
		adaptation.WithPluginConfigPath(cfg.configPath),
		adaptation.WithRegistrationTimeout(cfg.regTimeout),
		adaptation.WithRequestTimeout(cfg.requestTimeout),
		adaptation.WithSyncTimeout(cfg.syncTimeout),
		adaptation.WithLogger(log),
		adaptation.WithMetrics(rec),
	}
	if owners {
		opts = append(opts, adaptation.WithContainerRecords(recordsKept))
	} else {
		opts = append(opts, adaptation.WithContainerRecords(0))
	}
	if cfg.runtimeConfig != nil {
		opts = append(opts, runtimeConfigOptions(*cfg.runtimeConfig)...)
	}
	if len(cfg.required) > 0 {
		opts = append(opts, requiredPluginsOption(cfg.required))
	}
	opts = append(opts, pluginSettingsOptions(cfg)...)
	// A tool run again and again on the same WASM plugins should not compile
	// them every time.
	if dir, err := os.UserCacheDir(); err == nil {
		opts = append(opts, adaptation.WithWASMCompilationCacheDir(filepath.Join(dir, "nritest", "wasm-code")))
	}
	if cfg.socket == "" {
		return append(opts, adaptation.WithDisabledExternalConnections())
	}
	return append(opts, adaptation.WithSocketPath(cfg.socket))
}

// stopRuntime stops the adaptation within stopGrace, whatever the caller's
// context: the plugins must not outlive the run.
func stopRuntime(a *adaptation.Adaptation, log *logrus.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	if err := a.Stop(ctx); err != nil {
		log.WithError(err).Warn("nritest: stopping the runtime")
	}
}

// waitExternal waits until cfg.wait external plugins are active, woken by
// the PluginCount metric rather than by polling.
func waitExternal(ctx context.Context, a *adaptation.Adaptation, rec *recorder, changes *pluginChanges, cfg config, stderr io.Writer) error {
	if cfg.wait == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "nritest: waiting up to %s for %d external plugin(s) on %s (see --wait-timeout)\n", cfg.waitTimeout, cfg.wait, cfg.socket)
	deadline := time.NewTimer(cfg.waitTimeout)
	defer deadline.Stop()
	// A plugin that never connects most often exited before it could: say
	// why that happens, once, early in a long wait.
	hint := time.NewTimer(min(hintAfter, cfg.waitTimeout/2))
	defer hint.Stop()
	for {
		n := countExternal(a.Plugins())
		if n >= cfg.wait {
			return nil
		}
		refused, next := changes.refusals()
		if len(refused) > 0 && n+len(refused) >= cfg.wait {
			// As many plugins came as were awaited; those refused will not
			// come back by themselves.
			return fmt.Errorf("stopped waiting: %d of %d awaited external plugin(s) connected to %s, and %d of them were refused (%s)",
				n+len(refused), cfg.wait, cfg.socket, len(refused), strings.Join(refused, "; "))
		}
		select {
		case <-next:
		case <-rec.countChanged():
		case <-hint.C:
			if n == 0 && len(refused) == 0 {
				fmt.Fprintf(stderr, "nritest: no plugin has connected to %s yet: %s\n", cfg.socket, neverConnectedHint)
			}
		case <-deadline.C:
			return fmt.Errorf("only %d of %d external plugins connected to %s within %s (--wait-timeout); %s",
				n, cfg.wait, cfg.socket, cfg.waitTimeout, neverConnectedHint)
		case <-ctx.Done():
			return fmt.Errorf("interrupted while waiting for external plugins (%d of %d connected): %w",
				n, cfg.wait, context.Cause(ctx))
		}
	}
}

// hintAfter is how long nritest waits for a first external plugin before
// it says why one may never come.
const hintAfter = 5 * time.Second

func countExternal(infos []adaptation.PluginInfo) int {
	n := 0
	for _, p := range infos {
		if p.Kind == adaptation.KindExternal {
			n++
		}
	}
	return n
}

// replacements says which plugins connected again under the same index and
// name, each replacing the earlier instance: they count once.
func replacements(changes []PluginChangeReport) string {
	var ids []string
	for _, c := range changes {
		if replaced(c) && !slices.Contains(ids, c.Plugin) {
			ids = append(ids, c.Plugin)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return "; " + strings.Join(ids, ", ") + " connected more than once: each new instance replaced the earlier one, and counts once"
}

// pluginSource is the plugin directory a run launches from and how the
// report names it; cleanup removes the bundled samples' temporary directory.
func pluginSource(cfg config) (dir, source string, cleanup func(), err error) {
	switch {
	case cfg.samples:
		dir, cleanup, err := installSamples()
		if err != nil {
			return "", "", nil, err
		}
		return dir, "bundled samples, pre-installed in " + dir + " (temporary)", cleanup, nil
	case cfg.pluginPath == "":
		return "", "no pre-installed plugins", func() {}, nil
	}
	return cfg.pluginPath, "pre-installed from " + cfg.pluginPath, func() {}, nil
}
