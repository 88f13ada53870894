// SPDX-License-Identifier: Apache-2.0

// What CreateContainer keeps while plugins adjust a container, for its validators.

package relay

import (
	"fmt"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
	"github.com/nrikit/nrikit/internal/nri"
)

// creation is what CreateContainer keeps while plugins adjust a container.
type creation struct {
	result  *merge.Create
	handled consulted // the plugins whose reply was taken; nil when no validator needs them
	out     outgoing[*api.CreateContainerRequest]
	// pristine is the encoding of the request's pod and container before any
	// plugin adjusted it, when every validator takes the request encoded:
	// their request is then this encoding followed by the merged result's,
	// and the container need not be copied or encoded again.
	pristine []byte
}

// startCreation prepares the merge of a creation that validators (listed as
// it begins) will see, or not.
func (r *Relay) startCreation(req *api.CreateContainerRequest, validators []*plugin) creation {
	if validators == nil && r.cfg.DefaultValidator == nil {
		return creation{result: merge.NewUnvalidatedCreate(req), out: outgoing[*api.CreateContainerRequest]{req: req}}
	}
	if r.cfg.DefaultValidator == nil && allEncoded(validators) {
		c := creation{result: merge.NewUnvalidatedCreate(req), handled: consulted{}, out: outgoing[*api.CreateContainerRequest]{req: req}}
		// The first plugin gets the request as encoded here: the same bytes.
		if c.pristine = c.out.seed(); c.pristine != nil {
			return c
		}
	}
	return creation{result: merge.NewCreate(req), handled: consulted{}, out: outgoing[*api.CreateContainerRequest]{req: req}}
}

// allEncoded reports whether every plugin takes its requests encoded, none
// as Go messages in-process.
func allEncoded(plugins []*plugin) bool {
	for _, p := range plugins {
		if p.kind == nri.Builtin {
			return false
		}
	}
	return true
}

// validationRequest completes vreq, the merged result, with the pod and the
// container as they were before any plugin adjusted them.
func (c creation) validationRequest(req *api.CreateContainerRequest, vreq *api.ValidateContainerAdjustmentRequest) (*outgoing[*api.ValidateContainerAdjustmentRequest], error) {
	if c.pristine == nil {
		vreq.Pod, vreq.Container = req.GetPod(), c.result.Original()
		return newOutgoing(vreq, true), nil
	}
	// Only plugins that take it encoded validate (startCreation).
	b, err := appendEncoding(c.pristine, vreq)
	if err != nil {
		return nil, fmt.Errorf("nrikit: encoding the validation request of container %q: %w", req.GetContainer().GetId(), err)
	}
	return withEncoding(vreq, b), nil
}
