// SPDX-License-Identifier: Apache-2.0

// Peer: the process at the other end of a plugin connection, and the pod the runtime says it runs in.

package identity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nrikit/nrikit/internal/accept"
	"github.com/nrikit/nrikit/internal/panics"
)

// Peer is who connected: the kernel's word (accept.Peer) and, when asked
// for, the pod the runtime says its pid runs in.
type Peer struct {
	accept.Peer
	Pod    string // "namespace/name"; "" when not in a pod, or not asked
	PodErr error  // why the pod is not known, when it was asked for
}

// Resolver is the runtime's: the pod the process pid runs in, as
// namespace and name; both "" when it runs in none.
type Resolver func(ctx context.Context, pid int) (namespace, name string, err error)

// resolveTimeout bounds the runtime's Resolver, which a registration waits
// for.
const resolveTimeout = time.Second

// ResolvePod asks resolve for p's pod, within resolveTimeout and ctx, and
// records it in p, or why it is not known. A nil resolve, or an unknown
// pid, leaves it unknown. resolve is the runtime's: it must return by
// ctx's end; a panic in it is an error.
func (p *Peer) ResolvePod(ctx context.Context, resolve Resolver) {
	switch {
	case resolve == nil:
		p.PodErr = errors.New("the runtime does not tell a process's pod")
		return
	case p.PID <= 0:
		p.PodErr = errors.New("this OS does not tell a peer's pid")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	ns, name, err := callResolver(ctx, resolve, p.PID)
	switch {
	case err != nil:
		p.PodErr = fmt.Errorf("the runtime's lookup of pid %d: %w", p.PID, err)
	case ns != "" || name != "":
		p.Pod = ns + "/" + name
	}
}

func callResolver(ctx context.Context, resolve Resolver, pid int) (ns, name string, err error) {
	defer panics.Recover(&err)
	return resolve(ctx, pid)
}

// Fields are p's fields for a log line, under prefix: pid, uid, gid, exe,
// pod, those that are known.
func (p *Peer) Fields(prefix string, add func(key string, value any)) {
	if p.PID > 0 {
		add(prefix+"pid", p.PID)
	}
	if p.UID >= 0 {
		add(prefix+"uid", p.UID)
	}
	if p.GID >= 0 {
		add(prefix+"gid", p.GID)
	}
	if p.Exe != "" {
		add(prefix+"exe", p.Exe)
	}
	if p.Pod != "" {
		add(prefix+"pod", p.Pod)
	}
}

// String describes p for an error: "pid 12 uid 0 gid 0 exe /usr/bin/x".
func (p *Peer) String() string {
	s := ""
	p.Fields("", func(key string, value any) {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("%s %v", key, value)
	})
	if s == "" {
		return "unknown peer"
	}
	return s
}
