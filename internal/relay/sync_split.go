// SPDX-License-Identifier: Apache-2.0

// Splitting a snapshot too big for one message (v1beta1).

package relay

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/nrikit/nrikit/api"
)

// maxSyncMessage is the largest SynchronizeRequest we send, 999 KiB. The
// ttrpc limit is 4 MiB; messages of about 1 MB stay far below it and keep
// what the plugin must hold at once small. (The bound dates from when the
// mux cut every message into 4096-byte frames, of which a reference peer
// queues at most 256; since it sends each message in at most two frames,
// as the reference does, that no longer limits the size.)
const maxSyncMessage = 999 << 10

type snapshotChunk struct {
	pods []*api.PodSandbox
	ctrs []*api.Container
}

// splitSnapshot cuts the state into messages of at most limit encoded bytes,
// computed up front from each entry's size, pods first. An empty state is
// one empty message.
func splitSnapshot(pods []*api.PodSandbox, ctrs []*api.Container, limit int) ([]snapshotChunk, error) {
	const moreFlag = 2 // tag and value of "more"
	var (
		chunks []snapshotChunk
		cur    snapshotChunk
		size   = moreFlag
	)
	add := func(n int, what string) (fits bool, err error) {
		entry := 1 + protowire.SizeBytes(n)
		if moreFlag+entry > limit {
			return false, fmt.Errorf("nrikit: %s of %d bytes exceeds the %d-byte sync message limit", what, n, limit)
		}
		if size+entry > limit {
			chunks = append(chunks, cur)
			cur, size = snapshotChunk{}, moreFlag
		}
		size += entry
		return true, nil
	}
	for _, pod := range pods {
		if _, err := add(encodedSize(pod), "pod "+pod.GetId()); err != nil {
			return nil, err
		}
		cur.pods = append(cur.pods, pod)
	}
	for _, ctr := range ctrs {
		if _, err := add(encodedSize(ctr), "container "+ctr.GetId()); err != nil {
			return nil, err
		}
		cur.ctrs = append(cur.ctrs, ctr)
	}
	return append(chunks, cur), nil
}
