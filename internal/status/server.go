// SPDX-License-Identifier: Apache-2.0

// The status endpoint's HTTP server: Status and container records, read-only, on a listener it is given.

package status

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"time"
)

// MaxClients bounds the connections a Server serves at once; a connection
// beyond it is closed as soon as it is accepted.
const MaxClients = 16

// Timeouts of the status endpoint's connections: a client that does not
// send its request, or read the answer, in time is disconnected, and an
// idle kept-alive one makes room.
const (
	statusReadTimeout  = 5 * time.Second
	statusWriteTimeout = 10 * time.Second
	statusIdleTimeout  = 5 * time.Second
)

// Answers are what a Server answers with, each encoded as JSON. They are
// called on the server's goroutines, one per request.
type Answers struct {
	// Status is the snapshot GET /v1/status answers.
	Status func() any
	// Record is the record of container id that GET /v1/containers/{id}
	// answers; false when there is none (404).
	Record func(id string) (any, bool)
}

// Server is the status endpoint while the runtime's adaptation runs.
type Server struct {
	srv  *http.Server
	done chan struct{} // closed when Serve returned
}

// Serve serves answers on l, at most MaxClients connections at once, until
// Stop. l is the Server's from then on: Stop closes it.
func Serve(l net.Listener, answers Answers) *Server {
	s := &Server{
		srv: &http.Server{
			Handler:           handler(answers),
			ReadHeaderTimeout: statusReadTimeout,
			ReadTimeout:       statusReadTimeout,
			WriteTimeout:      statusWriteTimeout,
			IdleTimeout:       statusIdleTimeout,
			MaxHeaderBytes:    8 << 10,
		},
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(newLimitListener(l, MaxClients))
	}()
	return s
}

// Stop closes the listener and every connection, and waits until no
// goroutine of the endpoint is left. A nil Server is stopped already.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	_ = s.srv.Close()
	<-s.done
	// Close does not wait for handlers; Shutdown does, and with every
	// connection closed it returns as soon as they did.
	_ = s.srv.Shutdown(context.Background())
}

func handler(answers Answers) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, answers.Status())
	})
	mux.HandleFunc("GET /v1/containers/{id}", func(w http.ResponseWriter, r *http.Request) {
		rec, ok := answers.Record(r.PathValue("id"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no record of this container"})
			return
		}
		writeJSON(w, http.StatusOK, rec)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away: nothing to tell it
}
