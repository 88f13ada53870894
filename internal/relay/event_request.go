// SPDX-License-Identifier: Apache-2.0

// Refusing setup events for pods and containers already removed.

package relay

import (
	"context"
	"fmt"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/lifecycle"
)

// checkRequest refuses the setup of a pod or container that was already
// removed: plugins never hear of it after its removal. A request that names
// no pod (or, for a container event, no container) is relayed as the
// reference relays it, but nrikit cannot keep that pod's or container's
// lifecycle: no ordering or exactly-once bookkeeping applies to it. The
// check and the record of a creation that begins take one locked pass of
// the lifecycle (Begin).
func (r *Relay) checkRequest(ctx context.Context, ev api.Event, pol eventPolicy, req any) error {
	podID, ctrID := lifecycle.PodID(req), lifecycle.ContainerID(req)
	if podID == "" || ev.IsContainerEvent() && ctrID == "" {
		r.logCtx(ctx).WithFields(logrus.Fields{"event": ev.Name(), "pod": podID, "container": ctrID}).
			Debug("nrikit: request names no pod or container: relayed without lifecycle bookkeeping")
	}
	removed := r.lifecycle.Begin(ev, req, pol.class == classSetup, podID, ctrID)
	switch {
	case removed == "":
		return nil
	case removed == podID:
		return fmt.Errorf("%w: %s for pod %s", ErrRemoved, ev.Name(), podID)
	}
	return fmt.Errorf("%w: %s for container %s", ErrRemoved, ev.Name(), ctrID)
}
