// SPDX-License-Identifier: Apache-2.0

package identity

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/internal/accept"
)

func peer(uid, gid int, exe, pod string) Peer {
	return Peer{Peer: accept.Peer{PID: 42, UID: uid, GID: gid, Exe: exe}, Pod: pod}
}

// TestMatch: a peer matches when it matches every key set, any value of
// each; a mismatch says which key and what the peer was.
func TestMatch(t *testing.T) {
	rules := &Rules{UIDs: []uint32{0, 1000}, Exe: []string{"/opt/nri/bin/*"}, Pods: []string{"kube-system/dranet-*"}}
	for _, tc := range []struct {
		name string
		peer Peer
		want string // "" matches
	}{
		{"all match", peer(1000, 5, "/opt/nri/bin/dranet", "kube-system/dranet-x1"), ""},
		{"uid", peer(1001, 5, "/opt/nri/bin/dranet", "kube-system/dranet-x1"), "uid 1001 is not one of uids [0 1000]"},
		{"exe in a subdirectory", peer(0, 5, "/opt/nri/bin/sub/dranet", "kube-system/dranet-x1"), "executable /opt/nri/bin/sub/dranet matches none of exe"},
		{"pod of another namespace", peer(0, 5, "/opt/nri/bin/dranet", "default/dranet-x1"), "pod default/dranet-x1 matches none of pods"},
		{"no pod", peer(0, 5, "/opt/nri/bin/dranet", ""), "it runs in no pod"},
		{"uid unknown", peer(-1, 5, "/opt/nri/bin/dranet", "kube-system/dranet-x1"), "does not tell a peer's uid"},
		{"exe unknown", peer(0, 5, "", "kube-system/dranet-x1"), "executable is not known"},
	} {
		err := rules.Match(tc.peer)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Match(%+v) = %v, want %q", tc.name, tc.peer, err, tc.want)
		}
	}
	p := peer(0, 5, "/opt/nri/bin/dranet", "")
	p.PodErr = errors.New("lookup failed")
	if err := rules.Match(p); err == nil || !strings.Contains(err.Error(), "lookup failed") {
		t.Errorf("a peer whose pod the runtime could not tell: %v, want refused saying why", err)
	}
	if err := (&Rules{GIDs: []uint32{7}}).Match(peer(0, 7, "", "")); err != nil {
		t.Errorf("gid 7 bound, peer of gid 7: %v", err)
	}
}

// TestValidate names the first bad value by its key.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		rules Rules
		want  string
	}{
		{Rules{}, "p: binds the name to no peer"},
		{Rules{UIDs: []uint32{1<<32 - 1}}, "p.uids: 4294967295 is beyond the largest id the kernel stores, 4294967294"},
		{Rules{GIDs: []uint32{1<<32 - 1}}, "p.gids: 4294967295 is beyond"},
		{Rules{Exe: []string{"dranet"}}, `p.exe: "dranet": not an absolute path`},
		{Rules{Exe: []string{"/opt/[x"}}, `p.exe: "/opt/[x": syntax error in pattern`},
		{Rules{Pods: []string{"dranet"}}, `p.pods: "dranet": not "namespace/name"`},
		{Rules{Pods: []string{"a/b/c"}}, `p.pods: "a/b/c": not "namespace/name"`},
		{Rules{Pods: make([]string, 65)}, "p.pods: 65 entries, more than 64"},
		{Rules{UIDs: []uint32{0}, Exe: []string{"/usr/bin/*"}, Pods: []string{"*/dranet-*"}}, ""},
	} {
		err := tc.rules.Validate("p")
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.rules, err, tc.want)
		}
	}
}

// TestUnmatchable names the keys this OS or the runtime cannot tell.
func TestUnmatchable(t *testing.T) {
	r := &Rules{UIDs: []uint32{0}, Exe: []string{"/x"}, Pods: []string{"a/b"}}
	if got := r.Unmatchable(accept.Knows{PID: true, UID: true, GID: true, Exe: true}, true); len(got) != 0 {
		t.Errorf("everything known: %v", got)
	}
	if got := r.Unmatchable(accept.Knows{PID: true, UID: true, GID: true}, false); !slices.Equal(got, []string{"exe", "pods"}) {
		t.Errorf("no executable, no resolver: %v, want exe and pods", got)
	}
	if got := r.Unmatchable(accept.Knows{}, true); !slices.Equal(got, []string{"uids", "exe", "pods"}) {
		t.Errorf("nothing known: %v, want uids, exe and pods", got)
	}
}

// TestResolvePod: the runtime's answer, its error, its panic and its
// absence each leave the peer's pod told or why it is not.
func TestResolvePod(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		resolve Resolver
		pod     string
		err     string
	}{
		{"in a pod", func(_ context.Context, pid int) (string, string, error) { return "kube-system", "dranet-x", nil }, "kube-system/dranet-x", ""},
		{"in none", func(context.Context, int) (string, string, error) { return "", "", nil }, "", ""},
		{"error", func(context.Context, int) (string, string, error) { return "", "", errors.New("no cgroup") }, "", "no cgroup"},
		{"panic", func(context.Context, int) (string, string, error) { panic("bug") }, "", "bug"},
		{"no resolver", nil, "", "does not tell a process's pod"},
	} {
		p := peer(0, 0, "", "")
		p.ResolvePod(ctx, tc.resolve)
		if p.Pod != tc.pod || (p.PodErr == nil) != (tc.err == "") || p.PodErr != nil && !strings.Contains(p.PodErr.Error(), tc.err) {
			t.Errorf("%s: pod %q, error %v; want %q, %q", tc.name, p.Pod, p.PodErr, tc.pod, tc.err)
		}
	}
	unknown := Peer{Peer: accept.Unknown}
	unknown.ResolvePod(ctx, func(context.Context, int) (string, string, error) { t.Error("asked about pid 0"); return "", "", nil })
	if unknown.PodErr == nil {
		t.Error("a peer of unknown pid has a pod")
	}
}
