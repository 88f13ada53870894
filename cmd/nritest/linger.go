// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nrikit/nrikit/internal/syncx"
)

// linger keeps the pod and containers running for d before the teardown,
// so that what plugins do on their own (unsolicited UpdateContainers)
// arrives while its targets exist. The run's context ends it early (Ctrl-C); it then returns false.
func linger(ctx context.Context, d time.Duration, stderr io.Writer) (full bool) {
	if d <= 0 {
		return true
	}
	fmt.Fprintf(stderr, "nritest: lingering for %s while the containers run (Ctrl-C ends it)\n", d)
	return syncx.Sleep(ctx, d)
}
