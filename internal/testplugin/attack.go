// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/internal/mux"
)

// AttackEvent is the Record.Event of an attacker's summary, written when it
// is stopped; Record.Reason counts the rounds of each case.
const AttackEvent = "Attack"

// attackFloodCalls is how many UpdateContainers calls one flood round fires.
const attackFloodCalls = 2000

// attacker loops through hostile cases against a runtime's socket.
type attacker struct {
	cfg    Config
	rng    *rand.Rand
	mu     sync.Mutex
	rounds map[string]int
	hangs  sync.WaitGroup
	slots  chan struct{} // connect-and-hang connections open at once
}

// Attack runs the attacker until ctx ends, then logs its summary.
func Attack(ctx context.Context, cfg Config) error {
	a := &attacker{cfg: cfg, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1)),
		rounds: map[string]int{}, slots: make(chan struct{}, 4)}
	cases := []struct {
		name string
		run  func(context.Context) error
	}{
		{"garbage", a.garbage},
		{"oversized-frame", a.oversized},
		{"bad-registration", a.badRegistration},
		{"update-flood", a.flood},
		{"unsolicited-replies", a.bogusReplies},
		{"connect-and-hang", a.connectAndHang},
	}
	for ctx.Err() == nil {
		for _, c := range cases {
			if ctx.Err() != nil {
				break
			}
			// An attack that fails is no news: the runtime may refuse it.
			_ = c.run(ctx)
			a.mu.Lock()
			a.rounds[c.name]++
			a.mu.Unlock()
		}
	}
	a.hangs.Wait()
	return a.summary()
}

func (a *attacker) summary() error {
	l, err := openLog(a.cfg.LogPath)
	if err != nil {
		return err
	}
	defer l.close()
	var parts []string
	for k, v := range a.rounds {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return l.write(Record{Plugin: a.cfg.Name, Index: a.cfg.Index, Event: AttackEvent, Reason: strings.Join(parts, " ")})
}

func (a *attacker) dial() (net.Conn, error) { return net.Dial("unix", a.cfg.SocketPath) }

// untilClosed waits, at most limit, for the runtime to close conn.
func untilClosed(conn net.Conn, limit time.Duration) {
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	buf := make([]byte, 4096)
	for {
		if _, err := conn.Read(buf); err != nil {
			return
		}
	}
}

func frame(id mux.ConnID, payload []byte) []byte {
	b := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint32(b[0:4], uint32(id))
	binary.BigEndian.PutUint32(b[4:8], uint32(len(payload)))
	return append(b, payload...)
}

// garbage sends random bytes, then hangs up.
func (a *attacker) garbage(context.Context) error {
	conn, err := a.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	junk := make([]byte, 1+a.rng.IntN(8192))
	for i := range junk {
		junk[i] = byte(a.rng.Uint32())
	}
	_, err = conn.Write(junk)
	return err
}

// oversized declares a mux frame far beyond the largest allowed.
func (a *attacker) oversized(context.Context) error {
	conn, err := a.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	hdr := make([]byte, 8)
	binary.BigEndian.PutUint32(hdr[0:4], uint32(mux.RuntimeServiceConn))
	binary.BigEndian.PutUint32(hdr[4:8], 1<<31)
	if _, err := conn.Write(hdr); err != nil {
		return err
	}
	untilClosed(conn, 5*time.Second)
	return nil
}

// badRegistration registers with an identity the runtime must refuse.
func (a *attacker) badRegistration(ctx context.Context) error {
	conn, err := a.dial()
	if err != nil {
		return err
	}
	cfg := Config{Name: "../bad name", Index: "x"}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := Start(ctx, conn, cfg)
	if err == nil {
		p.Close()
		return fmt.Errorf("nrikit: testplugin: attacker: registration of %q was accepted", cfg.Name)
	}
	return nil
}

// flood registers and fires attackFloodCalls UpdateContainers calls at once.
func (a *attacker) flood(ctx context.Context) error {
	conn, err := a.dial()
	if err != nil {
		return err
	}
	cfg := Config{Name: "flood", Index: "99", Events: "updatepodsandbox"}
	p, err := Start(ctx, conn, cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	p.flood(ctx, &Flood{Count: attackFloodCalls})
	return nil
}

// bogusReplies sends, on the connection where the runtime is the client,
// replies to calls it never made.
func (a *attacker) bogusReplies(context.Context) error {
	conn, err := a.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	payload, err := proto.Marshal(&ttrpc.Response{Payload: []byte("never asked")})
	if err != nil {
		return err
	}
	var batch []byte
	for i := 0; i < 200; i++ {
		msg := make([]byte, 10, 10+len(payload))
		binary.BigEndian.PutUint32(msg[0:4], uint32(len(payload)))
		binary.BigEndian.PutUint32(msg[4:8], uint32(2*i+1))
		msg[8] = 2 // response
		batch = append(batch, frame(mux.PluginServiceConn, append(msg, payload...))...)
	}
	_, err = conn.Write(batch)
	return err
}

// connectAndHang connects and says nothing, in the background, until the
// runtime gives up on the registration; a few at a time.
func (a *attacker) connectAndHang(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
	default:
		return nil // enough are hanging already
	}
	conn, err := a.dial()
	if err != nil {
		<-a.slots
		return err
	}
	a.hangs.Add(1)
	go func() {
		defer a.hangs.Done()
		defer func() { <-a.slots }()
		defer conn.Close()
		stop := context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Now()) })
		defer stop()
		untilClosed(conn, time.Minute)
	}()
	return nil
}
