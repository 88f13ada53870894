// SPDX-License-Identifier: Apache-2.0

package guard

import (
	"testing"

	"github.com/containerd/ttrpc"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func marshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func TestCallName(t *testing.T) {
	good := marshal(&ttrpc.Request{Service: "s", Method: "m", Payload: []byte{1, 2}, TimeoutNano: 5})
	if s, m, ok := callName(good); !ok || s != "s" || m != "m" {
		t.Errorf("callName = %q, %q, %v", s, m, ok)
	}
	for _, bad := range [][]byte{{0xff}, {0x0a, 0x05, 'a'}, {0x0a, 0x01, 0xff}, {0x22}} {
		if _, _, ok := callName(bad); ok {
			t.Errorf("callName(%x) decodes", bad)
		}
	}
}
