// SPDX-License-Identifier: Apache-2.0

// Logging with the caller's context: a line about a call the runtime made carries that call's context.

package relay

import (
	"context"

	"github.com/sirupsen/logrus"
)

// withCallContext is base for a line about a call the runtime made with
// ctx: the runtime's entry for ctx with base's fields added, when the
// runtime gave a way to get one; base carrying ctx otherwise (a logrus hook
// of the runtime's may read it). Where both have a field, the context's
// value is kept: base also holds what the runtime's entry for
// context.Background() had, which must not hide the caller's value.
func withCallContext(ctx context.Context, fromContext func(context.Context) *logrus.Entry, base *logrus.Entry) *logrus.Entry {
	if ctx == nil {
		return base
	}
	if fromContext == nil {
		return base.WithContext(ctx)
	}
	e := fromContext(ctx)
	if e == nil {
		return base.WithContext(ctx)
	}
	added := make(logrus.Fields, len(base.Data))
	for k, v := range base.Data {
		if _, set := e.Data[k]; !set {
			added[k] = v
		}
	}
	return e.WithFields(added).WithContext(ctx)
}

// logCtx is a.log for a line about a call the runtime made with ctx.
func (r *Relay) logCtx(ctx context.Context) *logrus.Entry {
	return withCallContext(ctx, r.cfg.LogFromContext, r.log)
}

// logCtx is p.log for a line about a call the runtime made with ctx.
func (p *plugin) logCtx(ctx context.Context) *logrus.Entry {
	return withCallContext(ctx, p.logFromContext, p.log)
}
