// SPDX-License-Identifier: Apache-2.0

// Claims: a process that tries, again and again, to register under a plugin's name.

package testplugin

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
)

// ClaimsEvent is the Record.Event of a claimant's summary, written when it
// has made its claims: Record.Reason is "registered=N refused=M", and
// Record.Error the first refusal's text.
const ClaimsEvent = "Claims"

// claimsAtOnce is how many claims a claimant has in flight: below the
// runtime's bound on the connections one process may have registering.
const claimsAtOnce = 4

// Claim registers cfg.Claims times under cfg.Index and cfg.Name, each time
// on a new connection that it closes at once, claimsAtOnce at a time, and
// logs how many registrations the runtime accepted and refused. It is a
// local client that wants a plugin's name (and with it the operator's
// settings for it), not a plugin.
func Claim(ctx context.Context, cfg Config) error {
	var registered, refused atomic.Int64
	var firstRefusal sync.Once
	var reason string
	claims := make(chan struct{})
	var wg sync.WaitGroup
	for range claimsAtOnce {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range claims {
				err := claimOnce(ctx, cfg)
				if err == nil {
					registered.Add(1)
					continue
				}
				refused.Add(1)
				firstRefusal.Do(func() { reason = err.Error() })
			}
		}()
	}
	for i := 0; i < cfg.Claims && ctx.Err() == nil; i++ {
		claims <- struct{}{}
	}
	close(claims)
	wg.Wait()
	l, err := openLog(cfg.LogPath)
	if err != nil {
		return err
	}
	defer l.close()
	return l.write(Record{Plugin: cfg.Name, Index: cfg.Index, Event: ClaimsEvent,
		Reason: fmt.Sprintf("registered=%d refused=%d", registered.Load(), refused.Load()), Error: reason})
}

// claimOnce registers once, nil if the runtime accepted it.
func claimOnce(ctx context.Context, cfg Config) error {
	conn, err := net.Dial("unix", cfg.SocketPath)
	if err != nil {
		return err
	}
	p, err := Start(ctx, conn, Config{Name: cfg.Name, Index: cfg.Index})
	if err != nil {
		return err
	}
	p.Close()
	return nil
}
