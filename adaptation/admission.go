package adaptation

import (
	"sync"
	"time"

	"github.com/nrikit/nrikit/internal/guard"
)

// Bounds on external connections that have not finished their handshake.
// Each holds a mux, a ttrpc server and a few goroutines until it registers
// or its registration timeout passes, so without a bound a local client
// opening connections it never uses runs the runtime out of descriptors
// and memory. A node runs tens of plugins, each connecting once; one
// process gets a share, so that another's flood does not keep it out.
const (
	MaxRegisteringConnections       = 128
	MaxRegisteringConnectionsPerPID = 16
)

// admission counts connections in their handshake, in all and per peer
// process (pid 0 where the OS does not tell, counted in all only).
type admission struct {
	mu    sync.Mutex
	total int
	byPID map[int]int
	// refusedLog and unregisteredLog bound, across all peers, the lines
	// about refused connections and about connections that failed to
	// register: each connection is new, so no per-connection limit holds
	// a flood of them back.
	refusedLog, unregisteredLog *guard.Limiter
}

func newAdmission() *admission {
	return &admission{byPID: map[int]int{},
		refusedLog:      guard.NewLimiter(10, 10*time.Second),
		unregisteredLog: guard.NewLimiter(10, 10*time.Second)}
}

// enter takes a place for a connection from pid; leave gives it back.
func (ad *admission) enter(pid int) (leave func(), ok bool) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	if ad.total >= MaxRegisteringConnections || (pid != 0 && ad.byPID[pid] >= MaxRegisteringConnectionsPerPID) {
		return nil, false
	}
	ad.total++
	if pid != 0 {
		ad.byPID[pid]++
	}
	return func() { ad.leave(pid) }, true
}

func (ad *admission) leave(pid int) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	ad.total--
	if pid == 0 {
		return
	}
	if ad.byPID[pid]--; ad.byPID[pid] == 0 {
		delete(ad.byPID, pid)
	}
}
