package adaptation

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/guard"
)

// Bounds on external connections in their handshake (until the plugin has
// joined or failed). Each holds a mux, a ttrpc server and a few goroutines,
// so without a bound a local client opening connections it never uses runs
// the runtime out of descriptors and memory. A node runs tens of plugins,
// each connecting once and registering at once. When all places are taken,
// the oldest connection that has not registered makes room for the new one:
// a flood of idle connections cannot keep out a plugin that registers. Only
// when every place is held by a plugin that registered and is still joining
// is a new connection refused. One process gets a share, beyond which its
// own new connections are refused.
const (
	MaxRegisteringConnections       = 128
	MaxRegisteringConnectionsPerPID = 16
)

// ErrTooManyRegistering is how a connection over these bounds is refused:
// in its RegisterPlugin reply, whose error text names the bound, when the
// peer gets as far as calling it.
var ErrTooManyRegistering = errors.New("nrikit: too many plugin connections registering at once")

// errEvicted ends a connection that had not registered when all places were
// taken and a newer one came.
var errEvicted = errors.New("nrikit: closed before registering, to make room for a newer connection: " +
	"too many connections were registering at once")

// admission counts connections that have not registered, in all and per
// peer process (pid 0 where the OS does not tell, counted in all only).
type admission struct {
	mu      sync.Mutex
	waiting []*admitted // oldest first
	byPID   map[int]int
	// refusedLog, unregisteredLog and namedLog bound, across all peers, the
	// lines about refused connections, about connections that failed
	// before naming a valid plugin, and about those refused under a valid
	// name (an ID the runtime's own plugin holds, a sync back-off): each
	// connection is new, so no per-connection limit holds a flood of them
	// back, and a flood of one kind does not hide the other.
	refusedLog, unregisteredLog, namedLog *guard.Limiter
}

// admitted is one connection's place; evict closes the connection.
type admitted struct {
	pid        int
	evict      func()
	registered bool // under admission.mu: no longer evictable
}

func newAdmission() *admission {
	return &admission{byPID: map[int]int{},
		refusedLog:      guard.NewLimiter(10, 10*time.Second),
		unregisteredLog: guard.NewLimiter(10, 10*time.Second),
		namedLog:        guard.NewLimiter(10, 10*time.Second)}
}

// enter takes a place for a connection from pid, closing the oldest one
// that has not registered when all are taken. registered marks the
// connection registered; leave gives its place back once its handshake
// ended. It fails when pid has its share, or every place is held by a
// registered plugin, with an ErrTooManyRegistering that names the bound.
func (ad *admission) enter(pid int, evict func()) (registered, leave func(), err error) {
	ad.mu.Lock()
	if pid != 0 && ad.byPID[pid] >= MaxRegisteringConnectionsPerPID {
		ad.mu.Unlock()
		return nil, nil, fmt.Errorf("%w: process %d already has %d, the most one process may have "+
			"(from connecting until synchronized); connect the next plugin once an earlier one has synchronized",
			ErrTooManyRegistering, pid, MaxRegisteringConnectionsPerPID)
	}
	var oldest *admitted
	if len(ad.waiting) >= MaxRegisteringConnections {
		if oldest = ad.oldestUnregisteredLocked(); oldest == nil {
			ad.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: %d plugins are registering or synchronizing, the most the runtime admits at once",
				ErrTooManyRegistering, MaxRegisteringConnections)
		}
		ad.removeLocked(oldest)
	}
	a := &admitted{pid: pid, evict: evict}
	ad.waiting = append(ad.waiting, a)
	if pid != 0 {
		ad.byPID[pid]++
	}
	ad.mu.Unlock()
	if oldest != nil {
		oldest.evict()
	}
	var once sync.Once
	return func() { ad.markRegistered(a) }, func() { once.Do(func() { ad.leave(a) }) }, nil
}

func (ad *admission) oldestUnregisteredLocked() *admitted {
	for _, a := range ad.waiting {
		if !a.registered {
			return a
		}
	}
	return nil
}

func (ad *admission) markRegistered(a *admitted) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	a.registered = true
}

func (ad *admission) leave(a *admitted) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	ad.removeLocked(a)
}

// removeLocked takes a out, if it is still there (an evicted one is not).
func (ad *admission) removeLocked(a *admitted) {
	i := slices.Index(ad.waiting, a)
	if i < 0 {
		return
	}
	ad.waiting = slices.Delete(ad.waiting, i, i+1)
	if a.pid == 0 {
		return
	}
	if ad.byPID[a.pid]--; ad.byPID[a.pid] == 0 {
		delete(ad.byPID, a.pid)
	}
}
