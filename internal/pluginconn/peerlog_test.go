// SPDX-License-Identifier: Apache-2.0

package pluginconn

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/internal/guard"
	"github.com/nrikit/nrikit/internal/mux"
	"github.com/nrikit/nrikit/internal/wake"
)

// TestViolationsNameThePeer: before registration a violation names the
// plugin as Dial was told (a launched plugin's file name), after
// it the registered plugin, and the summary of suppressed lines comes when
// the connection closes.
func TestViolationsNameThePeer(t *testing.T) {
	runtimeEnd, peer := net.Pipe()
	logger, hook := logtest.NewNullLogger()
	entry := logrus.NewEntry(logger)
	c, err := Dial(runtimeEnd, Config{Register: registerEmpty, Log: entry, Name: "10-launched"})
	if err != nil {
		t.Fatal(err)
	}
	frame := func(stream uint32, typ guard.MessageType, payload []byte) []byte {
		msg := guard.AppendHeader(nil, guard.Header{Length: uint32(len(payload)), StreamID: stream, Type: typ})
		msg = append(msg, payload...)
		b := binary.BigEndian.AppendUint32(nil, uint32(mux.RuntimeServiceConn))
		return append(binary.BigEndian.AppendUint32(b, uint32(len(msg))), msg...)
	}
	dataMessage := func(stream uint32) []byte { return frame(stream, guard.TypeData, nil) }
	lines := &lineSignal{}
	logger.AddHook(lines)
	waitEntries := func(n int) []*logrus.Entry {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			changed := lines.changed()
			if entries := hook.AllEntries(); len(entries) >= n {
				return entries
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("%d log lines, want %d", len(hook.AllEntries()), n)
			}
		}
	}
	if _, err := peer.Write(dataMessage(1)); err != nil {
		t.Fatal(err)
	}
	if got := waitEntries(1)[0].Data["plugin"]; got != "10-launched" {
		t.Errorf("before registration the line names %v", got)
	}
	c.Registered(entry.WithField("plugin", "10-registered"))
	for i := range violationBurst + 5 {
		if _, err := peer.Write(dataMessage(uint32(3 + 2*i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := waitEntries(violationBurst)[1].Data["plugin"]; got != "10-registered" {
		t.Errorf("after registration the line names %v", got)
	}
	// A call answered after them shows that all have been read.
	call, _ := proto.Marshal(&ttrpc.Request{Service: "nri.pkg.api.v1alpha1.Runtime", Method: "UpdateContainers"})
	if _, err := peer.Write(frame(101, guard.TypeRequest, call)); err != nil {
		t.Fatal(err)
	}
	var hdr [8]byte
	if _, err := io.ReadFull(peer, hdr[:]); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	c.Close()
	peer.Close()
	last := lastOwnLine(hook.AllEntries())
	if last == nil || last.Data["suppressed"] != 6 || last.Data["plugin"] != "10-registered" {
		t.Errorf("nrikit's last line %v, want the summary of 6 suppressed", last)
	}
}

// lastOwnLine is the last line nrikit logged itself. ttrpc logs through the
// same logger, and its server may still log a reply it failed to send to the
// closed connection after close returned.
func lastOwnLine(entries []*logrus.Entry) *logrus.Entry {
	for i := len(entries) - 1; i >= 0; i-- {
		if strings.HasPrefix(entries[i].Message, "nrikit: ") {
			return entries[i]
		}
	}
	return nil
}

// lineSignal wakes waiters on every log line.
type lineSignal struct {
	mu     sync.Mutex
	signal wake.Signal
}

func (h *lineSignal) Levels() []logrus.Level { return logrus.AllLevels }

func (h *lineSignal) Fire(*logrus.Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.signal.Broadcast()
	return nil
}

func (h *lineSignal) changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.signal.Wait()
}
