// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package sockpair

import "os"

func files() (a, b *os.File, err error) { return nil, nil, errUnsupported }
