// SPDX-License-Identifier: Apache-2.0

// Package observe delivers the events of a plugin that the runtime never
// waits for: an observer (plugin_settings delivery = "observe"), and the
// validations of a validator run dry. Each such plugin has one [Queue]:
// a bounded FIFO of calls, made one at a time, in order, on one goroutine,
// each bounded by the plugin's own timeout.
//
// What it owns: the queued calls, their count and encoded size, the
// goroutine that makes them, and what Status shows of them (length,
// bytes, delivered, lag). A call that does not fit ([Config.MaxEvents]
// calls or [Config.MaxBytes] encoded bytes) is never waited for and never
// skipped silently: the queue overflows, takes nothing more, and tells its
// owner once ([Config.Overflow]), who drops the observer so that it
// reconnects and resynchronizes.
//
// What it needs: its owner (internal/relay) makes each call ([Item.Deliver]:
// the request encoded already, so that the runtime's objects are not kept),
// starts its goroutines ([Config.Go], so that the owner can wait for them),
// and ends the queue: [Queue.Drain] within Stop's context, [Queue.Close]
// when the plugin goes.
package observe
