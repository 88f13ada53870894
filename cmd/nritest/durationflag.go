// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"time"
)

// durationValue is a flag.Value for a Go duration whose parse error says
// what a duration looks like: the flag package's own says only "parse
// error", and "--sync-timeout 1" leaves the user guessing the unit.
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: use a Go duration like 2s, 500ms or 1m30s", s)
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return time.Duration(*d).String() }

// durationVar defines a duration flag with a helpful parse error.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}
