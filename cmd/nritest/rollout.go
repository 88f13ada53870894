// SPDX-License-Identifier: Apache-2.0

// --observe and --filter: a plugin run as an observer, or with a scope of pods, as an operator
// would roll it out; and the wait for the observers' queues after each step.

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/filter"
)

// filterFlag is one --filter NAME=SPEC, repeatable.
type filterFlag struct {
	specs *map[string]*adaptation.PluginFilter
}

func (f filterFlag) String() string {
	if f.specs == nil {
		return ""
	}
	var names []string
	for name := range *f.specs {
		names = append(names, name)
	}
	return strings.Join(names, ",")
}

func (f filterFlag) Set(v string) error {
	name, spec, ok := strings.Cut(v, "=")
	if name = strings.TrimSpace(name); !ok || name == "" {
		return fmt.Errorf("%q is not NAME=SPEC", v)
	}
	pf, err := parseFilter(spec)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *f.specs == nil {
		*f.specs = map[string]*adaptation.PluginFilter{}
	}
	if _, dup := (*f.specs)[name]; dup {
		return fmt.Errorf("%s: given twice", name)
	}
	(*f.specs)[name] = pf
	return nil
}

// parseFilter reads SPEC: parts separated by ';', each KEY=VALUE[,VALUE...]
// with the keys of plugin_settings' filter table, as in
// "runtime_handlers=nvidia;pod_labels=gpu=true,!spot". The values are
// checked by New, which names the key and entry at fault.
func parseFilter(spec string) (*adaptation.PluginFilter, error) {
	f := &adaptation.PluginFilter{}
	parts := map[string]*[]string{
		"namespaces": &f.Namespaces, "exclude_namespaces": &f.ExcludeNamespaces, "runtime_handlers": &f.RuntimeHandlers,
		"pod_labels": &f.PodLabels, "pod_annotations": &f.PodAnnotations,
	}
	for part := range strings.SplitSeq(spec, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		key, values, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		list, known := parts[key]
		switch {
		case !ok:
			return nil, fmt.Errorf("%q is not KEY=VALUE[,VALUE...]", part)
		case !known:
			return nil, fmt.Errorf("unknown filter key %q (namespaces, exclude_namespaces, runtime_handlers, pod_labels, pod_annotations)", key)
		}
		for _, v := range strings.Split(values, ",") {
			*list = append(*list, strings.TrimSpace(v))
		}
	}
	if len(f.Namespaces)+len(f.ExcludeNamespaces)+len(f.RuntimeHandlers)+len(f.PodLabels)+len(f.PodAnnotations) == 0 {
		return nil, errors.New("empty filter: give at least one KEY=VALUE")
	}
	return f, nil
}

// scopes are the filters as the contract checks them, by plugin ID; a name
// without an index stands for each index (the plugin_settings rule).
func scopes(filters map[string]*adaptation.PluginFilter) map[string]*filter.Selector {
	out := map[string]*filter.Selector{}
	for name, f := range filters {
		sel, err := filter.New(filter.Spec{Namespaces: f.Namespaces, ExcludeNamespaces: f.ExcludeNamespaces,
			RuntimeHandlers: f.RuntimeHandlers, PodLabels: f.PodLabels, PodAnnotations: f.PodAnnotations})
		if err == nil && sel != nil { // a bad one failed New already
			out[name] = sel
		}
	}
	return out
}

// settler is what each step waits for once it returned: with --observe,
// the observers' deliveries; nothing otherwise.
func (c config) settler(a *adaptation.Adaptation) func(context.Context) {
	if len(c.observe) == 0 {
		return func(context.Context) {}
	}
	return func(ctx context.Context) { awaitObservers(ctx, a, c.requestTimeout+c.syncTimeout) }
}

// awaitObservers waits until every observer's queue is empty, so that the
// report puts each delivery under the step that queued it. It gives up
// after stall without a delivery (a hung observer): the report then shows
// its calls where they came.
func awaitObservers(ctx context.Context, a *adaptation.Adaptation, stall time.Duration) {
	if a == nil {
		return
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var delivered uint64
	deadline := time.Now().Add(stall)
	for {
		waiting, progress := observersBehind(a)
		if waiting == 0 {
			return
		}
		if progress != delivered {
			delivered, deadline = progress, time.Now().Add(stall)
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// observersBehind counts the events waiting for the observers, and the
// deliveries made so far.
func observersBehind(a *adaptation.Adaptation) (waiting int, delivered uint64) {
	for _, p := range a.Status().Plugins {
		if q := p.Queue; q != nil {
			waiting += q.QueueLength
			delivered += q.Delivered
		}
	}
	return waiting, delivered
}
