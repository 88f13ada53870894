// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/nrikit/nrikit/api"
)

// Flood makes a plugin, once synchronized, fire Count UpdateContainers calls at
// the runtime at once, each from its own goroutine, without waiting for the
// replies of the others: the load of a misbehaving plugin.
type Flood struct {
	Count int `json:"count"`
	// ContainerID is the container the updates name ("flood" when empty).
	ContainerID string `json:"container_id,omitempty"`
	// Exit ends the process (status 0) once every call has returned.
	Exit bool `json:"exit,omitempty"`
}

func (f *Flood) validate() error {
	if f != nil && f.Count <= 0 {
		return fmt.Errorf("%w: flood count %d is not positive", ErrConfig, f.Count)
	}
	return nil
}

// flood fires the calls once the plugin is synchronized, so that its own
// handshake does not time out behind them; they end with ctx or the
// connection.
func (p *Plugin) flood(ctx context.Context, f *Flood) {
	select {
	case <-p.h.synced:
	case <-p.mux.Done():
		return
	case <-ctx.Done():
		return
	}
	id := f.ContainerID
	if id == "" {
		id = "flood"
	}
	var wg sync.WaitGroup
	for i := 0; i < f.Count; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.UpdateContainers(ctx, []*api.ContainerUpdate{Update{ContainerID: id, CPUShares: uint64(2 + i)}.ContainerUpdate()})
		}()
	}
	wg.Wait()
	if f.Exit {
		os.Exit(0)
	}
}
