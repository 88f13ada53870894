// SPDX-License-Identifier: Apache-2.0

// Command convert feeds the same inputs to nrikit's api helpers and to the
// reference's (github.com/containerd/nri/pkg/api) and compares the results
// field by field: every conversion from and to OCI spec types a runtime's
// glue uses, the optional-value constructors, the adjustment builders and
// update setters, the owner lookups and the event-mask helpers. Each table
// has an empty, a partial and a full input (and nil where the helper takes
// a pointer, list or map).
//
// NRI messages are compared by encoding nrikit's and decoding it as the
// reference's type (the field numbers are identical), then proto.Equal:
// message presence counts, so an absent section differs from an empty one.
// Spec values are compared with reflect.DeepEqual, so a nil pointer, slice
// or map differs from an empty one, as it does for a runtime that
// dereferences it.
//
// It prints one line per case and a final PASS or FAIL line, and exits 1 if
// any case differs.
package main

import (
	"fmt"
	"os"
	"sort"
)

type report struct{ cases, failed int }

// check records one case.
func (r *report) check(table, name string, err error) {
	r.cases++
	if err != nil {
		r.failed++
		fmt.Printf("FAIL %s/%s: %v\n", table, name, err)
		return
	}
	fmt.Printf("ok   %s/%s\n", table, name)
}

// each runs fn for every input of a table, in name order.
func each[I any](r *report, table string, inputs map[string]I, fn func(I) error) {
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r.check(table, n, fn(inputs[n]))
	}
}

func main() {
	r := &report{}
	fromOCI(r)
	toOCI(r)
	optionals(r)
	builders(r)
	owners(r)
	events(r)
	if r.failed > 0 {
		fmt.Printf("FAIL: %d of %d cases differ\n", r.failed, r.cases)
		os.Exit(1)
	}
	fmt.Printf("PASS: %d cases agree\n", r.cases)
}
