// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package launch

import (
	"errors"
	"fmt"
	"os"
)

// socketpair is Linux-only: NRI plugins run next to Linux container
// runtimes. Elsewhere Discover still works and Start reports why it cannot.
func socketpair(string) (local, peer *os.File, err error) {
	return nil, nil, fmt.Errorf("launching plugins is only supported on linux: %w", errors.ErrUnsupported)
}
