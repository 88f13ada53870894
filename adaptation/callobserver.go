// SPDX-License-Identifier: Apache-2.0

// WithPluginCallObserver: every call to a plugin, as the wire sees it.

package adaptation

import "google.golang.org/protobuf/proto"

// PluginCall is one RPC nrikit made to a plugin, as WithPluginCallObserver
// reports it: the wire's view, where the StateChange fallback shows as a
// dedicated call answered Unimplemented followed by a StateChange.
type PluginCall struct {
	Plugin string // idx-name
	// Method is the Plugin service method: "Synchronize", "CreateContainer",
	// "StateChange", ...
	Method   string
	Request  proto.Message
	Response proto.Message // nil when Err is set
	Err      error
}

// WithPluginCallObserver has fn called after every call nrikit makes to a
// plugin (Configure, Synchronize, each event, StateChange, Shutdown,
// ValidateContainerAdjustment), on the calling goroutine, before nrikit
// looks at the reply. It is for tools that check what plugins receive
// (nritest --conformance): fn must be fast and must neither keep nor change
// the messages. Without it, plugin calls are not wrapped at all.
func WithPluginCallObserver(fn func(PluginCall)) Option {
	return func(o *options) error {
		o.callObserver = fn
		return nil
	}
}
