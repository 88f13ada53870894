// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// lastError keeps the last error a reference-shaped recorder was given.
type lastError struct{ err error }

func (l *lastError) RecordPluginInvocation(_, _ string, err error)                          { l.err = err }
func (l *lastError) RecordPluginLatency(string, string, time.Duration)                      {}
func (l *lastError) RecordPluginAdjustments(string, string, *ContainerAdjustment, int, int) {}
func (l *lastError) UpdatePluginCount(int)                                                  {}

// A recorder that labels errors as containerd's does must see the classes it
// would see from the reference.
func TestMetricsRecorderOutcomeErrorsKeepTheirLabels(t *testing.T) {
	rec := &lastError{}
	var o options
	if err := WithMetricsRecorder(rec)(&o); err != nil {
		t.Fatal(err)
	}
	if err := WithMetricsRecorder(nil)(&options{}); err == nil {
		t.Error("a nil recorder was accepted")
	}
	for outcome, check := range map[Outcome]func(error) bool{
		OutcomeOK:       func(err error) bool { return err == nil },
		OutcomeRejected: func(err error) bool { return err == nil },
		OutcomeTimeout:  func(err error) bool { return errors.Is(err, context.DeadlineExceeded) },
		OutcomeCanceled: func(err error) bool { return errors.Is(err, context.Canceled) },
		OutcomeLost:     func(err error) bool { return errors.Is(err, ttrpc.ErrClosed) },
		OutcomeError:    func(err error) bool { return status.Code(err) == codes.Unknown },
	} {
		o.metrics.PluginInvoked("10-x", Event_CREATE_CONTAINER, outcome, time.Millisecond)
		if !check(rec.err) {
			t.Errorf("outcome %s reached the recorder as %v", outcome, rec.err)
		}
	}
}
