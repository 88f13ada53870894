// SPDX-License-Identifier: Apache-2.0

// The start-up both modes share: the plugins' source, the runtime's records, and the adaptation
// with its plugins started.

package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
)

// session is a runtime started for one run of a mode.
type session struct {
	a       *adaptation.Adaptation
	source  string // where the plugins came from, for the report
	rec     *recorder
	changes *pluginChanges
	deps    *deprecationLog
	cleanup func() // removes what pluginSource made; always set
	stop    func() // stops the runtime once; a no-op until it started
}

// startSession finds the plugins, creates the adaptation over st with cfg's
// options (owners: with container records, to attribute changes) and extra, and starts the
// plugins. On error the session still has source and cleanup, so that the
// caller reports the one and runs the other.
func startSession(ctx context.Context, cfg config, log *logrus.Entry, stderr io.Writer, st *store, owners bool, extra ...adaptation.Option) (*session, error) {
	s := &session{cleanup: func() {}, stop: func() {}}
	pluginDir, source, cleanup, err := pluginSource(cfg)
	if err != nil {
		return s, err
	}
	s.source, s.cleanup = source, cleanup
	s.rec, s.changes, s.deps = newRecorder(), newPluginChanges(cfg.verbose), newDeprecationLog()
	opts := append(options(cfg, pluginDir, log, s.rec, owners),
		adaptation.WithPluginChanges(s.changes.add), adaptation.WithDeprecationRecorder(s.deps))
	a, err := adaptation.New(runtimeName, runtimeVersion, st.sync, st.update, append(opts, extra...)...)
	if err != nil {
		return s, err
	}
	if err := startPlugins(ctx, a, cfg, s.changes, stderr); err != nil {
		return s, fmt.Errorf("starting the runtime: %w", err)
	}
	s.a = a
	s.stop = sync.OnceFunc(func() { stopRuntime(a, log) })
	return s, nil
}
