// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
)

// conform is --conformance: start the plugins as simulate does, run the
// conformance script, and check each plugin against the lifecycle contract.
func conform(ctx context.Context, cfg config, log *logrus.Entry, stderr io.Writer) *ConformanceReport {
	rep := &ConformanceReport{
		SchemaVersion: conformanceSchemaVersion,
		RunSettings:   newRunSettings(cfg),
		Own:           failerID + ": " + failerAbout,
	}
	st, tap := &store{phase: phaseStartUp}, newWiretap()
	w := newConformanceWorkload()
	w.preexisting(st)
	liveAtStart := st.liveIDs()
	sess, err := startSession(ctx, cfg, log, stderr, st, false,
		adaptation.WithBuiltinPlugins(failerPlugin{}.builtin()), adaptation.WithPluginCallObserver(tap.observe))
	defer sess.cleanup()
	rep.PluginSource = sess.source
	if err != nil {
		return rep.notStarted(err)
	}
	a, rec, changes, deps, stop := sess.a, sess.rec, sess.changes, sess.deps, sess.stop
	defer stop()

	run := &contractRun{liveAtStart: liveAtStart, objCase: objectCases(), podOf: map[string]string{}, pods: w.pods, scopes: scopes(cfg.filters)}
	for id, c := range w.ctrs {
		run.podOf[id] = c.GetPodSandboxId()
	}
	under := map[string]adaptation.PluginInfo{} // the plugins under test, as they joined
	restarts := map[string]string{}             // plugin: "" restarted, or why not
	finish := func() *ConformanceReport {
		for _, p := range a.Plugins() {
			if _, ok := under[p.Plugin]; !ok && p.Plugin != failerID {
				under[p.Plugin] = p
			}
		}
		rep.Deprecations = deprecationReports(deps.list())
		st.setPhase(phaseStopping)
		stop()
		rep.PluginChanges = changes.reports()
		rep.SkippedFiles = skippedFiles(rep.PluginChanges)
		// A plugin that never joined is checked too: it fails.
		for _, c := range rep.PluginChanges {
			if _, ok := under[c.Plugin]; !ok && c.Change == string(adaptation.PluginFailed) {
				under[c.Plugin] = adaptation.PluginInfo{Plugin: c.Plugin, Kind: c.Kind, Revision: c.Revision, Events: []string{}}
			}
		}
		rep.Results = pluginResults(run, under, tap, restarts, rep.PluginChanges, rep.Deprecations)
		rep.tally()
		return rep
	}
	if err := startUp(ctx, a, rec, changes, cfg, stderr); err != nil {
		rep.Stopped, rep.Cases = err.Error(), []CaseReport{}
		return finish()
	}
	for _, p := range a.Plugins() {
		if p.Plugin != failerID {
			under[p.Plugin] = p
		}
	}
	changes.lifecycleStarts()

	settle := cfg.settler(a)
	d := newConformanceDriver(a, st, w)
	d.restart = func(ctx context.Context) error {
		return restartAll(ctx, a, under, restarts)
	}
	run.steps = d.script()
	run.events = make([]EventReport, len(run.steps))
	failed := map[string]string{} // object ID: its setup event that failed unexpectedly
	for i, s := range run.steps {
		run.active = append(run.active, activeIDs(a.Plugins()))
		run.live = append(run.live, st.liveIDs())
		if why := skipAfterFailure(s, failed, w); why != "" {
			run.events[i] = EventReport{Seq: i + 1, Event: s.event.Name(), Target: s.target, TargetID: s.id, Calls: []Call{}, Result: resultSkipped, Skipped: why}
			continue
		}
		run.events[i] = runStep(ctx, i, s, rec, tap, st, settle)
		if s.restart {
			run.events[i].Note = restartNote(restarts)
		}
		if run.events[i].Result == resultFailed && !s.restart {
			failed[s.id] = s.event.Name()
		}
	}
	rep.Cases = caseReports(run)
	if ctx.Err() != nil {
		rep.Stopped = fmt.Sprintf("interrupted during the script (%v): the cases after it were not run", context.Cause(ctx))
	}
	return finish()
}

// notStarted is the report of a run whose runtime could not start: what
// stopped it, and empty lists.
func (r *ConformanceReport) notStarted(err error) *ConformanceReport {
	r.Stopped = err.Error()
	r.Cases, r.Results, r.Deprecations = []CaseReport{}, []PluginConformance{}, []DeprecationReport{}
	r.tally()
	return r
}

// runStep makes one call of the script and records it.
func runStep(ctx context.Context, i int, s cstep, rec *recorder, tap *wiretap, st *store, settle func(context.Context)) EventReport {
	r := EventReport{Seq: i + 1, Event: s.event.Name(), Target: s.target, TargetID: s.id, Calls: []Call{}}
	if s.restart {
		r.Event, r.TargetID = "Restart", ""
	}
	if ctx.Err() != nil {
		r.Result, r.Skipped = resultSkipped, "interrupted"
		return r
	}
	tap.setStep(i)
	st.setPhase(fmt.Sprintf("#%d %s %s", r.Seq, r.Event, r.Target))
	rec.begin(s.event)
	changes, err := s.run(ctx)
	settle(ctx)
	r.Calls, r.Changes, r.Result = rec.end(), changes, resultOK
	switch {
	case err != nil && s.expectFail:
		r.Result, r.Error = resultScripted, err.Error()
	case err != nil:
		r.Result, r.Error = resultFailed, err.Error()
	case s.expectFail:
		r.Result, r.Error = resultFailed, "scripted to fail, but it succeeded: "+failerID+" was not reached"
	}
	return r
}

// skipAfterFailure says why the runtime would not issue s after an
// unexpected failure, as drive does: the later setup and notification
// events of an object (or of its pod) whose setup failed. Teardown still
// comes.
func skipAfterFailure(s cstep, failed map[string]string, w *conformanceWorkload) string {
	if s.restart || isTeardown(s.event) {
		return ""
	}
	if ev := failed[s.id]; ev != "" {
		return "its " + ev + " failed"
	}
	if c := w.ctrs[s.id]; c != nil && failed[c.GetPodSandboxId()] != "" {
		return "the pod's " + failed[c.GetPodSandboxId()] + " failed"
	}
	return ""
}

// resultScripted is a step that failed as the script meant it to.
const resultScripted = "failed as scripted"

// restartAll restarts every plugin under test that nritest started; the
// others are recorded as not restartable, with why.
func restartAll(ctx context.Context, a *adaptation.Adaptation, under map[string]adaptation.PluginInfo, restarts map[string]string) error {
	ids := make([]string, 0, len(under))
	for id := range under {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		switch k := under[id].Kind; k {
		case adaptation.KindPreinstalled:
		case adaptation.KindExternal:
			restarts[id] = "skipped: external plugin, which nritest did not start and cannot restart"
			continue
		default:
			restarts[id] = "skipped: " + k + " plugin, which runs in-process: there is no process to restart"
			continue
		}
		if !slices.ContainsFunc(a.Plugins(), func(p adaptation.PluginInfo) bool { return p.Plugin == id }) {
			restarts[id] = "skipped: no longer connected"
			continue
		}
		if err := a.RestartPlugin(ctx, id); err != nil {
			restarts[id] = "failed: " + err.Error()
			errs = append(errs, err)
			continue
		}
		restarts[id] = ""
	}
	return errors.Join(errs...)
}

// restartNote says which plugins were restarted, and which not and why.
func restartNote(restarts map[string]string) string {
	ids := make([]string, 0, len(restarts))
	for id := range restarts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var done, notes []string
	for _, id := range ids {
		if restarts[id] == "" {
			done = append(done, id)
		} else {
			notes = append(notes, id+" "+restarts[id])
		}
	}
	if len(done) > 0 {
		notes = append([]string{"restarted " + strings.Join(done, ", ")}, notes...)
	}
	if len(notes) == 0 {
		return "no plugin to restart"
	}
	return strings.Join(notes, "; ")
}

func activeIDs(infos []adaptation.PluginInfo) map[string]bool {
	out := map[string]bool{}
	for _, p := range infos {
		out[p.Plugin] = true
	}
	return out
}

// objectCases says in which case each object is torn down.
func objectCases() map[string]string {
	return map[string]string{
		"pod-1": caseStopNoRemove, "ctr-1a": caseStopNoRemove, "ctr-1b": caseStopNoRemove,
		"ctr-1x": caseOtherFails, "ctr-1y": caseOtherFails,
		"pod-0": caseRemoveNoStop, "ctr-0a": caseRemoveNoStop, "pod-2": caseRemoveNoStop, "ctr-2a": caseRemoveNoStop,
	}
}

// liveIDs lists the store's pods, then containers.
func (s *store) liveIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, p := range s.pods {
		ids = append(ids, p.GetId())
	}
	for _, c := range s.ctrs {
		ids = append(ids, c.GetId())
	}
	return ids
}
