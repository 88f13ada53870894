package adaptation

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/mux"
)

// maxSyncMessage is the largest SynchronizeRequest we send. The ttrpc limit
// is 4 MiB, but a reference peer's mux queues at most 256 frames per
// connection and tears the connection down on the 257th, and we never send
// frames over 4096 bytes: a message of at most 250 frames can arrive whole
// even while the plugin is too busy (say, collecting garbage) to read.
const maxSyncMessage = 250*mux.MaxWritePayload - 1024

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
