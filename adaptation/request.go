package adaptation

import (
	"fmt"

	"github.com/nrikit/nrikit/api"
)

// checkRequest refuses what no plugin should be asked: an event that names
// no pod (or, for a container event, no container), and the setup of a pod
// or container that was already removed.
func (a *Adaptation) checkRequest(ev api.Event, pol eventPolicy, req any) error {
	podID, ctrID := podIDOf(req), containerIDOf(req)
	switch {
	case podID == "":
		return fmt.Errorf("%w: %s names no pod", ErrInvalidRequest, ev.Name())
	case isContainerEvent(ev) && ctrID == "":
		return fmt.Errorf("%w: %s names no container", ErrInvalidRequest, ev.Name())
	case pol.class != classSetup:
		return nil
	case a.lifecycle.isRemoved(podID):
		return fmt.Errorf("%w: %s for pod %s", ErrRemoved, ev.Name(), podID)
	case ctrID != "" && a.lifecycle.isRemoved(ctrID):
		return fmt.Errorf("%w: %s for container %s", ErrRemoved, ev.Name(), ctrID)
	}
	return nil
}
