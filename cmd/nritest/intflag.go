// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"strconv"
)

// intValue is a flag.Value for a count whose parse error says what a count
// looks like: the flag package's own says only "parse error".
type intValue int

func (n *intValue) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a whole number: use a count like 1 or 2", s)
	}
	*n = intValue(v)
	return nil
}

func (n *intValue) String() string { return strconv.Itoa(int(*n)) }

// intVar defines an integer flag with a helpful parse error.
func intVar(fs *flag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var((*intValue)(p), name, usage)
}
