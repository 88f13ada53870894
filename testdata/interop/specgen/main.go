// SPDX-License-Identifier: Apache-2.0

// Command specgen applies the same container adjustments to the same OCI
// spec twice, with the reference's spec generator
// (github.com/containerd/nri/pkg/runtime-tools/generate over
// github.com/opencontainers/runtime-tools/generate, as CRI-O and containerd
// use it) and with nrikit's ocispec.Applier, both with the same five
// runtime hooks (an annotation filter, a CDI device injector, a resource
// checker, block I/O and RDT class resolvers), and compares:
//
//   - the resulting specs, field by field;
//   - the hook calls, in order, with what each hook was given;
//   - whether the application failed.
//
// The adjustment is built once with nrikit's api types and reaches the
// reference by protobuf (the two have the same field numbers), so both get
// identical input.
//
// Every difference must be listed in its case (cases.go) with the reason it
// is deliberate; a listed difference that no longer shows fails too, so the
// list stays true. It prints one line per case and exits 1 if any failed.
package main

import (
	"fmt"
	"os"
)

func main() {
	failed := 0
	for _, c := range cases() {
		if problems := c.run(); len(problems) > 0 {
			failed++
			fmt.Printf("FAIL  %s\n", c.name)
			for _, p := range problems {
				fmt.Printf("        %s\n", p)
			}
			continue
		}
		fmt.Printf("ok    %s (%d deliberate difference(s))\n", c.name, len(c.differences))
		for _, d := range c.differences {
			fmt.Printf("        %s: %s\n", d.path, d.reason)
		}
	}
	if failed > 0 {
		fmt.Printf("FAIL: %d case(s)\n", failed)
		os.Exit(1)
	}
	fmt.Println("PASS")
}
