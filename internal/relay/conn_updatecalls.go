// SPDX-License-Identifier: Apache-2.0

// The runtime's UpdateFn calls in progress, for Stop to wait for.

package relay

import (
	"errors"
	"sync"
)

// errUpdatesStopped refuses a plugin's UpdateContainers once Stop began.
var errUpdatesStopped = errors.New("nrikit: the runtime is stopping: UpdateContainers not handed to it")

// updateCalls counts the calls of the runtime's UpdateFn in progress, so
// that Stop waits for them (within its deadline): one that returned after
// Stop would apply a stopped plugin's updates. Once Stop began, no new call
// starts.
type updateCalls struct {
	mu       sync.Mutex
	stopping bool
	wg       sync.WaitGroup
}

// enter counts a call about to start; it fails once Stop began.
func (u *updateCalls) enter() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.stopping {
		return errUpdatesStopped
	}
	u.wg.Add(1)
	return nil
}

func (u *updateCalls) leave() { u.wg.Done() }

// stop refuses new calls; Stop then waits for wg.
func (u *updateCalls) stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopping = true
}

// start lets calls in again (Start after Stop).
func (u *updateCalls) start() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopping = false
}
