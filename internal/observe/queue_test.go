// SPDX-License-Identifier: Apache-2.0

package observe

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

const waitLimit = 10 * time.Second

// recorder is a queue's owner in tests: it records the deliveries and can
// hold them.
type recorder struct {
	mu   sync.Mutex
	got  []int
	gate chan struct{} // a delivery waits for a value here; nil: none waits
	wg   sync.WaitGroup
}

func (r *recorder) item(n, size int) Item {
	return Item{Size: size, Deliver: func(ctx context.Context) {
		if r.gate != nil {
			select {
			case <-r.gate:
			case <-ctx.Done():
				return
			}
		}
		r.mu.Lock()
		r.got = append(r.got, n)
		r.mu.Unlock()
	}}
}

func (r *recorder) delivered() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.got...)
}

func (r *recorder) config(events, bytes int, overflow func(int)) Config {
	return Config{MaxEvents: events, MaxBytes: bytes, Overflow: overflow, Go: func(f func()) {
		r.wg.Add(1)
		go func() { defer r.wg.Done(); f() }()
	}}
}

func TestQueueDeliversInOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{}
	q := New(r.config(1000, 1<<20, nil))
	for i := range 500 {
		if !q.Push(r.item(i, 10)) {
			t.Fatalf("push %d refused", i)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if n := q.Drain(ctx); n != 0 {
		t.Fatalf("Drain left %d undelivered", n)
	}
	r.wg.Wait()
	got := r.delivered()
	if len(got) != 500 {
		t.Fatalf("delivered %d of 500", len(got))
	}
	for i, n := range got {
		if n != i {
			t.Fatalf("delivery %d was item %d: out of order", i, n)
		}
	}
	if s := q.Stats(); s.Delivered != 500 || s.Length != 0 || !s.Closed {
		t.Errorf("Stats after Drain = %+v", s)
	}
}

func TestQueuePushNeverWaits(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})} // every delivery blocks until closed
	q := New(r.config(100, 1<<20, nil))
	for i := range 100 {
		if !q.Push(r.item(i, 1)) {
			t.Fatalf("push %d refused", i)
		}
	}
	// All 100 were queued while the first delivery is blocked: Push did not
	// wait for it.
	if s := q.Stats(); s.Length != 100 {
		t.Errorf("Length = %d, want 100", s.Length)
	}
	close(r.gate)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	q.Drain(ctx)
	r.wg.Wait()
	if len(r.delivered()) != 100 {
		t.Errorf("delivered %d of 100", len(r.delivered()))
	}
}

func TestQueueOverflowsOnEvents(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})}
	overflowed := make(chan int, 2)
	q := New(r.config(16, 1<<20, func(behind int) { overflowed <- behind }))
	pushed := 0
	for i := range 200 {
		if !q.Push(r.item(i, 1)) {
			break
		}
		pushed++
	}
	// The first is taken into delivery at once or not: 16 wait at most,
	// plus the one in delivery.
	if pushed < 16 || pushed > 17 {
		t.Fatalf("%d pushes taken before the overflow, want 16 waiting (+1 in delivery)", pushed)
	}
	select {
	case behind := <-overflowed:
		if behind != pushed+1 {
			t.Errorf("overflow reported %d behind, want %d (queued) + 1 (did not fit)", behind, pushed)
		}
	case <-time.After(waitLimit):
		t.Fatal("overflow not reported")
	}
	if q.Push(r.item(999, 1)) {
		t.Error("an overflowed queue took another call")
	}
	r.wg.Wait() // the cancelled delivery returned and the loop ended
	if got := r.delivered(); len(got) != 0 {
		t.Errorf("an overflowed queue delivered %v", got)
	}
	if len(overflowed) != 0 {
		t.Error("overflow reported twice")
	}
}

func TestQueueOverflowsOnBytes(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})}
	overflowed := make(chan int, 1)
	q := New(r.config(1000, 100, func(behind int) { overflowed <- behind }))
	q.Push(r.item(0, 60)) // may go into delivery at once: then it no longer counts
	q.Push(r.item(1, 60))
	ok := q.Push(r.item(2, 60))
	if ok {
		ok = q.Push(r.item(3, 60)) // two waiting of 60 bytes cannot both fit in 100
	}
	if ok {
		t.Fatal("calls over the byte bound were queued")
	}
	select {
	case <-overflowed:
	case <-time.After(waitLimit):
		t.Fatal("overflow not reported")
	}
	r.wg.Wait()
}

func TestQueueUnboundedItemsDoNotCount(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})}
	q := New(r.config(2, 10, func(int) { t.Error("overflowed") }))
	for i := range 50 {
		it := r.item(i, 1<<20)
		it.Unbounded = true
		if !q.Push(it) {
			t.Fatalf("unbounded push %d refused", i)
		}
	}
	if !q.Push(r.item(50, 5)) || !q.Push(r.item(51, 5)) {
		t.Fatal("bounded pushes after unbounded ones refused")
	}
	close(r.gate)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	q.Drain(ctx)
	r.wg.Wait()
	if len(r.delivered()) != 52 {
		t.Errorf("delivered %d of 52", len(r.delivered()))
	}
}

func TestQueueDrainGivesUpAtItsContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})} // never opened: deliveries wait for their ctx
	q := New(r.config(100, 1<<20, nil))
	for i := range 10 {
		q.Push(r.item(i, 1))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n := q.Drain(ctx); n != 10 {
		t.Errorf("Drain at an ended context left %d undelivered, want 10", n)
	}
	select {
	case <-q.Done():
	case <-time.After(waitLimit):
		t.Fatal("the delivery loop did not end: the call in delivery was not cancelled")
	}
	r.wg.Wait()
	if q.Close() != 0 {
		t.Error("a second Close counted undelivered calls again")
	}
}

func TestQueueStatsShowLag(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})}
	q := New(r.config(100, 1<<20, nil))
	q.Push(r.item(0, 7))
	q.Push(r.item(1, 7))
	s := q.Stats()
	if s.Length != 2 || s.Bytes < 7 || s.Delivered != 0 || s.Lag <= 0 {
		t.Errorf("Stats = %+v, want 2 behind, 0 delivered, a lag", s)
	}
	if later := q.Stats(); later.Lag < s.Lag {
		t.Errorf("the lag shrank while nothing was delivered: %v, then %v", s.Lag, later.Lag)
	}
	close(r.gate)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	q.Drain(ctx)
	r.wg.Wait()
	if s := q.Stats(); s.Lag != 0 || s.LastLag == 0 || s.Delivered != 2 {
		t.Errorf("Stats after delivery = %+v", s)
	}
}

func TestQueueConcurrentPushes(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{}
	q := New(r.config(10000, 1<<20, nil))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				q.Push(r.item(w*1000+i, 1))
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if n := q.Drain(ctx); n != 0 {
		t.Fatalf("Drain left %d", n)
	}
	r.wg.Wait()
	got := r.delivered()
	if len(got) != 800 {
		t.Fatalf("delivered %d of 800", len(got))
	}
	last := map[int]int{}
	for _, n := range got { // each pusher's calls in its order
		w := n / 1000
		if prev, ok := last[w]; ok && n < prev {
			t.Fatalf("pusher %d's call %d delivered after %d", w, n, prev)
		}
		last[w] = n
	}
}

// Idle is told once the queue has delivered all it held, and by then its
// Stats show it: an owner can wait for that without polling.
func TestQueueTellsWhenIdle(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := &recorder{gate: make(chan struct{})}
	idle := make(chan Stats, 10)
	cfg := r.config(10, 1<<20, nil)
	var q *Queue
	cfg.Idle = func() { idle <- q.Stats() }
	q = New(cfg)
	for i := range 3 {
		q.Push(r.item(i, 1))
	}
	for range 3 {
		select {
		case s := <-idle:
			t.Fatalf("idle with a call in delivery and more waiting: %+v", s)
		case r.gate <- struct{}{}:
		}
	}
	select {
	case s := <-idle:
		if s.Length != 0 || s.Delivered != 3 {
			t.Errorf("Stats when idle: %+v, want all 3 delivered, none waiting", s)
		}
	case <-time.After(waitLimit):
		t.Fatal("Idle was never told")
	}
	q.Close()
	r.wg.Wait()
}
