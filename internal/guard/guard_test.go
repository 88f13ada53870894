package guard

import (
	"testing"
	"time"

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

func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := NewLimiter(2, time.Second)
	l.now = func() time.Time { return now }
	allowed := 0
	for range 10 {
		if ok, _ := l.Allow(); ok {
			allowed++
		}
	}
	if allowed != 2 {
		t.Fatalf("%d lines allowed of a burst of 2", allowed)
	}
	now = now.Add(time.Second)
	if ok, suppressed := l.Allow(); !ok || suppressed != 8 {
		t.Fatalf("next window: Allow = %v, %d; want true, 8", ok, suppressed)
	}
	l.Allow()
	l.Allow()
	if n := l.Flush(); n != 1 {
		t.Fatalf("Flush = %d, want 1", n)
	}
	if n := l.Flush(); n != 0 {
		t.Fatalf("second Flush = %d, want 0", n)
	}
}
