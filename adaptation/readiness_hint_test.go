// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// TestAwaitPluginsDoesNotBlameTheRuntimeForASilentPlugin: a required
// plugin that never answers Synchronize, though the runtime's SyncFn called
// back with its lists, keeps pods waiting; the hint that AwaitPlugins is
// called under the runtime's lock is not logged, since it is not.
func TestAwaitPluginsDoesNotBlameTheRuntimeForASilentPlugin(t *testing.T) {
	const wait = 1500 * time.Millisecond
	e := newEnv(t, readinessOptions(wait, adaptation.ReadinessFail, adaptation.WithSyncTimeout(waitLimit))...)
	calledBack := make(chan struct{})
	e.store.syncWith = func(ctx context.Context, cb adaptation.SyncCB) error {
		close(calledBack) // the plugin's one synchronization: it hangs until the test ends
		_, err := cb(ctx, nil, nil)
		return err
	}
	e.start()
	hang := testplugin.Config{Behaviours: map[string]testplugin.Behaviour{testplugin.KeySynchronize: {Hang: true}}}
	e.external(gateIdx, gateName, hang)
	select {
	case <-calledBack:
	case <-time.After(waitLimit):
		t.Fatal("the plugin did not reach its synchronization")
	}
	err := e.a.AwaitPlugins(context.Background(), testPod("p"))
	if !errors.Is(err, adaptation.ErrPluginsNotReady) || !strings.Contains(err.Error(), "synchronizing since") {
		t.Fatalf("AwaitPlugins: %v, want ErrPluginsNotReady saying the plugin synchronizes", err)
	}
	for _, en := range e.hook.AllEntries() {
		if strings.Contains(en.Message, "AwaitPlugins is probably called under a lock") {
			t.Errorf("the runtime was blamed for a plugin that does not answer Synchronize: %q", en.Message)
		}
	}
}
