// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// newTrunkIO returns the fast path for a socket trunk: its reads and writes
// are made on the socket's descriptor through syscall.RawConn, as raw system
// calls (see syscall_linux_norace.go), and wait in the netpoller, under the
// trunk's deadlines, as net.Conn's do. Any other trunk is used as it is,
// a type that wraps a socket included: its own Read and Write may do more.
func newTrunkIO(trunk net.Conn) trunkIO {
	uc, ok := trunk.(*net.UnixConn)
	if !ok {
		return connIO{trunk}
	}
	rc, err := uc.SyscallConn()
	if err != nil || !nonBlocking(rc) {
		return connIO{trunk}
	}
	r := &rawIO{rc: rc, network: networkOf(uc), laddr: uc.LocalAddr(), raddr: uc.RemoteAddr()}
	// Method values made once: a closure per call would be an allocation.
	r.readFn, r.writeFn, r.writevFn = r.readOnce, r.writeAll, r.writevAll
	return r
}

// nonBlocking says whether rc's descriptor is in non-blocking mode, as the
// netpoller keeps every socket it owns: only there may a raw call not block.
func nonBlocking(rc syscall.RawConn) bool {
	var flags uintptr
	var errn syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		flags, _, errn = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}); err != nil || errn != 0 {
		return false
	}
	return flags&syscall.O_NONBLOCK != 0
}

// rawIO reads and writes a socket's descriptor directly. The socket is
// non-blocking (the netpoller owns it), so no call here blocks in the
// kernel: EAGAIN hands the wait back to RawConn, which parks the goroutine
// until the socket is ready or the trunk's deadline passes.
type rawIO struct {
	rc           syscall.RawConn
	network      string // for errors, as net.Conn's
	laddr, raddr net.Addr

	readFn, writeFn, writevFn func(fd uintptr) bool

	// The read in progress; only the trunk reader reads.
	rbuf  []byte
	rn    int
	rerrn syscall.Errno

	// The write in progress; only the trunk lock's holder writes.
	wbuf   []byte
	wn     int
	werrn  syscall.Errno
	iovecs [3]syscall.Iovec
	wvec   *net.Buffers
}

// Read reads what the socket has, up to len(p), as net.Conn's Read does:
// io.EOF once the peer has closed, other errors as *net.OpError.
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.rbuf, r.rn, r.rerrn = p, 0, 0
	err := r.rc.Read(r.readFn)
	n, errn := r.rn, r.rerrn
	r.rbuf = nil
	switch {
	case err != nil:
		return 0, r.opError("read", err)
	case errn != 0:
		return 0, r.opError("read", os.NewSyscallError("read", errn))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (r *rawIO) readOnce(fd uintptr) bool {
	for {
		n, errn := sysRead(fd, r.rbuf)
		switch errn {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		r.rn, r.rerrn = n, errn
		return true
	}
}

// Write writes all of p unless the trunk's write deadline passes or the
// socket fails; it returns how much it wrote.
func (r *rawIO) Write(p []byte) (int, error) {
	r.wbuf, r.wn, r.werrn = p, 0, 0
	err := r.rc.Write(r.writeFn)
	n := r.wn
	r.wbuf = nil
	return n, r.writeError(err)
}

func (r *rawIO) writeAll(fd uintptr) bool {
	for r.wn < len(r.wbuf) {
		n, errn := sysWrite(fd, r.wbuf[r.wn:])
		if !r.wrote(n, errn) {
			return errn != syscall.EAGAIN
		}
	}
	return true
}

// writeBuffers writes b's buffers with writev, consuming b, so that the
// caller's net.Buffers behaves as after net.Buffers.WriteTo. The mux's
// messages have at most three (its frames), which fit in r.iovecs.
func (r *rawIO) writeBuffers(b *net.Buffers) (int64, error) {
	r.wvec, r.wn, r.werrn = b, 0, 0
	err := r.rc.Write(r.writevFn)
	n := r.wn
	r.wvec = nil
	return int64(n), r.writeError(err)
}

func (r *rawIO) writevAll(fd uintptr) bool {
	for len(*r.wvec) > 0 {
		iov := r.iovecs[:0]
		for _, b := range *r.wvec {
			if len(b) > 0 {
				iov = append(iov, syscall.Iovec{Base: &b[0]})
				iov[len(iov)-1].SetLen(len(b))
			}
		}
		if len(iov) == 0 {
			*r.wvec = (*r.wvec)[:0]
			return true
		}
		n, errn := sysWritev(fd, iov)
		clear(r.iovecs[:]) // keep no pointer to the caller's buffers
		if !r.wrote(n, errn) {
			return errn != syscall.EAGAIN
		}
		consume(r.wvec, n)
	}
	return true
}

// wrote accounts for one write system call's result, and says whether to
// go on writing.
func (r *rawIO) wrote(n int, errn syscall.Errno) bool {
	switch errn {
	case 0:
		r.wn += n
		return true
	case syscall.EINTR:
		return true
	case syscall.EAGAIN:
		return false
	}
	r.werrn = errn
	return false
}

func (r *rawIO) writeError(err error) error {
	if err != nil {
		return r.opError("write", err)
	}
	if r.werrn != 0 {
		return r.opError("write", os.NewSyscallError("write", r.werrn))
	}
	return nil
}

// opError shapes err as net.Conn's Read and Write shape theirs, so that
// what reaches logs and errors.Is reads the same on every path.
func (r *rawIO) opError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err // RawConn's own, "raw-read" or "raw-write"
	}
	return &net.OpError{Op: op, Net: r.network, Source: r.laddr, Addr: r.raddr, Err: err}
}

// networkOf is c's network name, "unix" for a socket pair's end too.
func networkOf(c *net.UnixConn) string {
	if a, _ := c.LocalAddr().(*net.UnixAddr); a != nil && a.Net != "" {
		return a.Net
	}
	return "unix"
}

// consume drops the first n bytes of v, as net.Buffers.WriteTo does with
// what it wrote.
func consume(v *net.Buffers, n int) {
	for len(*v) > 0 {
		if n < len((*v)[0]) {
			(*v)[0] = (*v)[0][n:]
			return
		}
		n -= len((*v)[0])
		(*v)[0] = nil
		*v = (*v)[1:]
	}
}
