package adaptation

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// maxSyncMessage is the largest SynchronizeRequest we send: the 4 MiB ttrpc
// limit less room for the request envelope (service, method, deadline).
const maxSyncMessage = 4<<20 - 1024

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
		if _, err := add(proto.Size(pod), "pod "+pod.GetId()); err != nil {
			return nil, err
		}
		cur.pods = append(cur.pods, pod)
	}
	for _, ctr := range ctrs {
		if _, err := add(proto.Size(ctr), "container "+ctr.GetId()); err != nil {
			return nil, err
		}
		cur.ctrs = append(cur.ctrs, ctr)
	}
	return append(chunks, cur), nil
}
