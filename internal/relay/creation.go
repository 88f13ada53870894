// SPDX-License-Identifier: Apache-2.0

// A container's creation on its way through CreateContainer's stages: admitted, encoded, adjusted
// by each plugin, merged, validated, recorded.

package relay

import (
	"context"
	"fmt"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
	"github.com/nrikit/nrikit/internal/nri"
	"github.com/nrikit/nrikit/internal/records"
)

// creation is one CreateContainer on its way through its stages
// (events.go): what it holds of the request, and what each stage leaves
// for the next.
type creation struct {
	r       *Relay
	req     *api.CreateContainerRequest
	release func()        // the event barrier
	dl      eventDeadline // with the slowest validator's timeout set aside
	// validators are the plugins that validate it, listed as it begins: no
	// plugin joins while the event barrier is held.
	validators []*plugin

	result  *merge.Create
	handled consulted // the plugins whose reply was taken; nil when no validator needs them
	out     outgoing[*api.CreateContainerRequest]
	// pristine is the encoding of the request's pod and container before any
	// plugin adjusted it, when every validator takes the request encoded:
	// their request is then this encoding followed by the merged result's,
	// and the container need not be copied or encoded again.
	pristine []byte

	// dryRun are the validators run dry, listed as it begins; dryRunReq
	// their request, encoded by the validate stage; defaultVerdict the
	// default validator's rejection when it runs dry (dryrun.go).
	dryRun         []*plugin
	dryRunReq      []byte
	defaultVerdict string
}

// admitCreation is the creation's first stage: it takes the event barrier
// and its deadline, refuses a container already removed, and lists its
// validators. A creation that is not admitted reaches no plugin, and
// neither does its undo.
func (r *Relay) admitCreation(ctx context.Context, req *api.CreateContainerRequest) (creation, error) {
	const ev = api.Event_CREATE_CONTAINER
	release, dl, err := r.setupBarrier(ctx, ev)
	if err != nil {
		r.lifecycle.ContainerGivenUp(req.GetContainer())
		return creation{}, err
	}
	if err := r.checkRequest(ctx, ev, policyOf(ev), req); err != nil {
		release()
		r.lifecycle.ContainerCreated(req.GetContainer(), false)
		return creation{}, err
	}
	validators := r.validators()
	return creation{r: r, req: req, release: release, dl: dl.withValidators(validators), validators: validators, dryRun: r.dryRunValidators()}, nil
}

// encode prepares the request as the plugins get it, shaped as the
// reference shapes it, and the merge of their replies; when validators will
// need the request as it was, it encodes it once now, before any plugin
// changes it, for the first plugin and for the validators alike.
func (c *creation) encode() {
	shapeContainerLikeReference(c.req.GetContainer())
	c.out = outgoing[*api.CreateContainerRequest]{req: c.req}
	switch {
	case c.validators == nil && c.dryRun == nil && c.r.cfg.DefaultValidator == nil:
		c.result = merge.NewUnvalidatedCreate(c.req)
	case c.r.cfg.DefaultValidator == nil && allEncoded(c.validators):
		c.result, c.handled = merge.NewUnvalidatedCreate(c.req), consulted{}
		// The first plugin gets the request as encoded here: the same bytes.
		if c.pristine = c.out.seed(); c.pristine == nil {
			c.result = merge.NewCreate(c.req)
		}
	default:
		c.result, c.handled = merge.NewCreate(c.req), consulted{}
	}
	c.result.LimitEvictions(c.r.lifecycle)
}

// adjust calls each plugin that takes CreateContainer, in order, merging
// each reply into the creation as it comes: the next plugin gets the
// request as the earlier ones left it.
func (c *creation) adjust(ctx context.Context) error {
	return callEach(ctx, c.r, api.Event_CREATE_CONTAINER, &c.out, api.PluginService.CreateContainer, c.mergeReply, c.dl, nil)
}

// mergeReply merges one plugin's reply, when it changes only what the
// plugin may change.
func (c *creation) mergeReply(p *plugin, rsp *api.CreateContainerResponse) error {
	c.out.changed()
	c.handled.add(p)
	c.r.countAdjustments(p, api.Event_CREATE_CONTAINER, rsp.GetAdjust() != nil, rsp.GetUpdate(), rsp.GetEvict())
	rsp = c.r.scopedCreateReply(p, rsp)
	if err := p.createInScope(rsp); err != nil {
		return err
	}
	return mergeError(c.result.Apply(p.id, rsp))
}

// merged is the merged response, shaped as the reference shapes it, after
// the plugins adjusted the container without error. A reply that failed to
// merge always fails the event (event_policy.go): a half-merged response
// never reaches the runtime.
func (c *creation) merged(err error) (*api.CreateContainerResponse, error) {
	if err == nil {
		err = mergeError(c.result.Err())
	}
	if err != nil {
		return nil, err
	}
	merged := c.result.Response()
	shapeLikeReference(merged.Adjust)
	return merged, nil
}

// validate has the validators approve a merged response; it returns the
// validator plugins that approved it.
func (c *creation) validate(ctx context.Context, merged *api.CreateContainerResponse, err error) ([]*plugin, error) {
	if err != nil {
		return nil, err
	}
	return c.r.validate(ctx, c, merged)
}

// record is the creation's last stage: the lifecycle learns whether it
// succeeded, and for an approved one the updates plugins' replies made to
// other containers are logged where discarded, and its record kept.
func (c *creation) record(ctx context.Context, merged *api.CreateContainerResponse, consulted []*plugin, err error) (*api.CreateContainerResponse, error) {
	r, ctr := c.r, c.req.GetContainer()
	r.lifecycle.ContainerCreated(ctr, err == nil)
	if err != nil {
		return nil, err
	}
	r.logDiscarded(ctx, api.Event_CREATE_CONTAINER, c.result.Discarded())
	r.logIgnoredEvictions(ctx, api.Event_CREATE_CONTAINER, c.result.IgnoredEvictions())
	if r.cfg.Records.On() {
		r.cfg.Records.Created(ctr, c.result.OwnersOf(ctr.GetId()), r.cfg.DefaultValidator != nil && c.defaultVerdict == "",
			len(consulted), func(i int) string { return consulted[i].id })
		r.cfg.Records.UpdatesMerged(records.ByCreation, c.result.Updated(), c.result.OwnersOf)
		c.recordDefaultVerdict()
	}
	// The observers get the request as the plugins left it: the container
	// with every adjustment applied (observe_events.go); then the
	// validators run dry, an observer's after its CreateContainer.
	toObservers(r, api.Event_CREATE_CONTAINER, c.req, api.PluginService.CreateContainer)
	c.queueDryRuns()
	return merged, nil
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
func (c *creation) validationRequest(vreq *api.ValidateContainerAdjustmentRequest) (*outgoing[*api.ValidateContainerAdjustmentRequest], error) {
	if c.pristine == nil {
		vreq.Pod, vreq.Container = c.req.GetPod(), c.result.Original()
		return newOutgoing(vreq, true), nil
	}
	// Only plugins that take it encoded validate (encode).
	b, err := appendEncoding(c.pristine, vreq)
	if err != nil {
		return nil, fmt.Errorf("nrikit: encoding the validation request of container %q: %w", c.req.GetContainer().GetId(), err)
	}
	return withEncoding(vreq, b), nil
}
