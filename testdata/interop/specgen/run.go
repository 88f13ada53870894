// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"slices"
	"strings"

	refapi "github.com/containerd/nri/pkg/api"
	xgen "github.com/containerd/nri/pkg/runtime-tools/generate"
	rspec "github.com/opencontainers/runtime-spec/specs-go"
	rgen "github.com/opencontainers/runtime-tools/generate"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// testCase is one adjustment applied both ways.
type testCase struct {
	name string
	base func(*rspec.Spec) // edits the base spec; nil keeps it
	adj  *api.ContainerAdjustment
	node node
	// fails: the reference fails. nrikit must fail too, unless "error" is
	// a listed difference, and then leave the spec as it was.
	fails bool
	// hostDecides: the host's mount table decides whether the reference
	// fails, so fails is not checked; nrikit must do as it does.
	hostDecides bool
	// differences are the deliberate ones, by path (see diff.go): exactly
	// these must differ.
	differences []difference
}

// difference is a deliberate difference and why nrikit does it so.
type difference struct {
	path   string
	reason string
}

// outcome is one side's result.
type outcome struct {
	spec  *rspec.Spec
	calls []string
	err   error
}

func (c testCase) baseSpec() *rspec.Spec {
	s := baseSpec()
	if c.base != nil {
		c.base(s)
	}
	return s
}

func (c testCase) run() []string {
	var problems []string
	ref, err := c.reference()
	if err != nil {
		return []string{err.Error()}
	}
	ours := c.nrikit()
	if (ref.err != nil) != c.fails && !c.hostDecides {
		problems = append(problems, fmt.Sprintf("the case is wrong: want the reference to fail=%v, its error: %v", c.fails, ref.err))
	}
	if ours.err != nil {
		if d := diffPaths(c.baseSpec(), ours.spec); len(d) > 0 {
			problems = append(problems, fmt.Sprintf("nrikit failed and changed the spec at %v", d))
		}
	}
	got := diffPaths(ref.spec, ours.spec)
	if (ref.err != nil) != (ours.err != nil) {
		got = append(got, delta{"error", errText(ref.err), errText(ours.err)})
	}
	if !slices.Equal(ref.calls, ours.calls) {
		got = append(got, delta{"calls", ref.calls, ours.calls})
	}
	problems = append(problems, c.checkDifferences(got)...)
	return problems
}

// checkDifferences: every differing path is under a listed one, and every
// listed one shows.
func (c testCase) checkDifferences(got []delta) []string {
	var problems []string
	for _, g := range got {
		if !slices.ContainsFunc(c.differences, func(d difference) bool { return under(g.path, d.path) }) {
			problems = append(problems, fmt.Sprintf("unlisted difference at %s:\n          reference %s\n          nrikit    %s",
				g.path, show(g.a), show(g.b)))
		}
	}
	for _, d := range c.differences {
		if !slices.ContainsFunc(got, func(g delta) bool { return under(g.path, d.path) }) {
			problems = append(problems, fmt.Sprintf("listed difference %s no longer shows: update the list", d.path))
		}
	}
	return problems
}

func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+".") || strings.HasPrefix(path, prefix+"[")
}

// reference applies the adjustment with the reference's generator, after a
// trip through protobuf into the reference's type.
func (c testCase) reference() (o outcome, err error) {
	refAdj := &refapi.ContainerAdjustment{}
	if c.adj != nil {
		b, err := proto.Marshal(c.adj)
		if err != nil {
			return o, fmt.Errorf("marshal: %w", err)
		}
		if err := proto.Unmarshal(b, refAdj); err != nil {
			return o, fmt.Errorf("unmarshal into the reference's type: %w", err)
		}
	} else {
		refAdj = nil
	}
	h := &hooks{node: c.node}
	o.spec = c.baseSpec()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the reference panicked: %v", p)
		}
	}()
	g := rgen.NewFromSpec(o.spec)
	o.err = xgen.SpecGenerator(&g, h.reference()...).Adjust(refAdj)
	o.calls = h.calls
	return o, nil
}

func (c testCase) nrikit() outcome {
	h := &hooks{node: c.node}
	o := outcome{spec: c.baseSpec()}
	o.err = h.applier().Apply(o.spec, c.adj)
	o.calls = h.calls
	return o
}

func errText(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}
