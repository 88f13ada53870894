//go:build !unix

package sockpair

import (
	"errors"
	"os"
)

var errUnsupported = errors.New("sockpair: no unix socket pairs on this OS")

func files() (a, b *os.File, err error) { return nil, nil, errUnsupported }
