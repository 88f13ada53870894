// SPDX-License-Identifier: Apache-2.0

// Config: what the test plugin does, serialisable to JSON for a child process.

package testplugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nrikit/nrikit/api"
)

// Config is what a test plugin does. The zero value (plus a name and an
// index) is a well-behaved modern plugin subscribed to every event.
type Config struct {
	Name  string `json:"name,omitempty"`
	Index string `json:"index,omitempty"`

	// Events is the subscription sent in ConfigureResponse, in the form
	// api.ParseEventMask reads ("all", "runpodsandbox,createcontainer").
	// Empty means all.
	Events string `json:"events,omitempty"`

	// Legacy makes the plugin look like one built on the v0.11.0 stub: the
	// nine newer events (LegacyEvents) answer Unimplemented on their
	// dedicated RPC and are only taken through StateChange.
	Legacy bool `json:"legacy,omitempty"`
	// NoStateChange makes StateChange answer Unimplemented too. With Legacy
	// it is a plugin that implements neither path for the nine events.
	NoStateChange bool `json:"no_state_change,omitempty"`
	// Revision is the protocol revision the plugin speaks: "v1alpha1" (the
	// default) or "v1beta1" (see adaptation/conn_revision.go).
	Revision string `json:"revision,omitempty"`

	// Behaviours change single calls. The key is an event's Name()
	// ("StopContainer") or one of "Configure", "Synchronize", "Shutdown",
	// "Register".
	Behaviours map[string]Behaviour `json:"behaviours,omitempty"`

	// Annotations and Env are the CreateContainer adjustment.
	Annotations map[string]string `json:"annotations,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	// MemoryLimit, when not 0, is the memory limit the CreateContainer
	// adjustment sets, in bytes.
	MemoryLimit int64 `json:"memory_limit,omitempty"`
	// CreateUpdates are updates of other containers returned with every
	// CreateContainer reply (one of the container being created is left out).
	CreateUpdates []Update `json:"create_updates,omitempty"`
	// StopUpdates are updates of other containers returned with every
	// StopContainer reply.
	StopUpdates []Update `json:"stop_updates,omitempty"`
	// UpdateMemoryLimit, when not 0, is the memory limit the reply to
	// UpdateContainer sets for the updated container, in bytes.
	UpdateMemoryLimit int64 `json:"update_memory_limit,omitempty"`

	// SyncUpdates are returned from Synchronize, with its final message.
	SyncUpdates []Update `json:"sync_updates,omitempty"`

	// FailurePolicy is sent in ConfigureResponse when set (v0.12.5 plugins).
	FailurePolicy *FailurePolicy `json:"failure_policy,omitempty"`

	// InvalidUTF8 makes the plugin hand back a string that is not valid
	// UTF-8 at one place (see InvalidAnnotationKey and the others), and
	// send its replies encoded without protobuf's check.
	InvalidUTF8 string `json:"invalid_utf8,omitempty"`

	// LogPath is the JSON-lines event log; empty disables logging.
	LogPath string `json:"log_path,omitempty"`
	// SocketPath is dialled when the process was not given a socket on fd 3
	// (an external plugin).
	SocketPath string `json:"socket_path,omitempty"`
	// Chaos, when set, makes event calls fail, hang or exit at random.
	Chaos *Chaos `json:"chaos,omitempty"`
	// Attack, when set, makes the process no plugin at all but an attacker
	// that loops through hostile connections to the socket until it is
	// stopped (see Attack).
	Attack bool `json:"attack,omitempty"`
	// Claims, when not 0, makes the process no plugin either but a
	// claimant that registers this many times under the plugin's index and
	// name (see Claim).
	Claims int `json:"claims,omitempty"`

	// Flood, when set, makes the plugin flood the runtime with
	// UpdateContainers calls once synchronized (see Flood).
	Flood *Flood `json:"flood,omitempty"`
	// UpdateLoop, when set, makes the plugin call UpdateContainers in a
	// loop, one call at a time, once synchronized (see UpdateLoop).
	UpdateLoop *UpdateLoop `json:"update_loop,omitempty"`

	// OutputFlood makes the process write this many bytes to stderr in
	// short lines, and then one line of a MiB without a newline to
	// stdout, before it connects: it cannot register before its output
	// was read.
	OutputFlood int `json:"output_flood,omitempty"`

	// Delay is a latency added to every event call (not to Configure,
	// Synchronize or Shutdown) that has no Behaviour.Delay of its own, as a
	// Go duration ("150ms").
	Delay string `json:"delay,omitempty"`

	// Reject makes ValidateContainerAdjustment reject every container with
	// this reason.
	Reject string `json:"reject,omitempty"`
	// LogAnnotations makes a CreateContainer record carry the container's
	// annotations as the plugin received them.
	LogAnnotations bool `json:"log_annotations,omitempty"`
	// Reconnect makes an external plugin dial the socket again, up to this
	// many times, when the runtime closes its connection without a
	// Shutdown (it was dropped): as a plugin that reconnects does.
	Reconnect int `json:"reconnect,omitempty"`
}

// FailurePolicy is the plugin's own failure policy.
type FailurePolicy struct {
	FailRequest   bool `json:"fail_request,omitempty"`
	KeepConnected bool `json:"keep_connected,omitempty"`
}

// Behaviour changes what one kind of call does. It is applied after the call
// is logged, in this order: Delay, Exit, Hang, Fail.
type Behaviour struct {
	// Fail makes the call return an error with this text.
	Fail string `json:"fail,omitempty"`
	// Hang blocks the call until its context is done (forever when it has no
	// deadline, or until the Handler is closed). For "Register" it means
	// never calling RegisterPlugin while keeping the connection open.
	Hang bool `json:"hang,omitempty"`
	// Exit ends the process with this code inside the call. Only for plugin
	// processes: in-process it would end the test binary.
	Exit int `json:"exit,omitempty"`
	// Panic makes the call panic with this message after writing a line
	// to stderr and to stdout, so the process dies as a crashing Go
	// plugin does: exit status 2, the panic and its stack on stderr. Only
	// for plugin processes, like Exit.
	Panic string `json:"panic,omitempty"`
	// Delay is a latency for this call, as a Go duration.
	Delay string `json:"delay,omitempty"`
}

// Behaviour keys that are not events.
const (
	KeyConfigure   = "Configure"
	KeySynchronize = "Synchronize"
	KeyShutdown    = "Shutdown"
	KeyRegister    = "Register"
)

// LegacyEvents are the events a v0.11.0 plugin only takes through
// StateChange.
var LegacyEvents = []api.Event{
	api.Event_RUN_POD_SANDBOX,
	api.Event_POST_UPDATE_POD_SANDBOX,
	api.Event_STOP_POD_SANDBOX,
	api.Event_REMOVE_POD_SANDBOX,
	api.Event_POST_CREATE_CONTAINER,
	api.Event_START_CONTAINER,
	api.Event_POST_START_CONTAINER,
	api.Event_POST_UPDATE_CONTAINER,
	api.Event_REMOVE_CONTAINER,
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("nrikit: testplugin: invalid config")

// Mask returns the subscription to send in ConfigureResponse.
func (c Config) Mask() (api.EventMask, error) {
	if c.Events == "" {
		return api.AllEvents, nil
	}
	m, err := api.ParseEventMask(c.Events)
	if err != nil {
		return 0, fmt.Errorf("%w: events: %w", ErrConfig, err)
	}
	return m, nil
}

// Validate checks everything a plugin would otherwise trip over mid-test:
// the event list, durations and behaviour keys. The identity is not checked,
// so that tests can register invalid names on purpose.
func (c Config) Validate() error {
	if _, err := c.Mask(); err != nil {
		return err
	}
	if _, err := parseDelay("delay", c.Delay); err != nil {
		return err
	}
	if err := c.validateRevision(); err != nil {
		return err
	}
	if err := c.validateInvalidUTF8(); err != nil {
		return err
	}
	if err := c.Flood.validate(); err != nil {
		return err
	}
	if err := c.UpdateLoop.validate(); err != nil {
		return err
	}
	if err := c.Chaos.validate(); err != nil {
		return err
	}
	for key, b := range c.Behaviours {
		if !validKey(key) {
			return fmt.Errorf("%w: behaviour key %q is neither an event name nor one of %s, %s, %s, %s",
				ErrConfig, key, KeyConfigure, KeySynchronize, KeyShutdown, KeyRegister)
		}
		if _, err := parseDelay("behaviour "+key+" delay", b.Delay); err != nil {
			return err
		}
	}
	return nil
}

func validKey(key string) bool {
	switch key {
	case KeyConfigure, KeySynchronize, KeyShutdown, KeyRegister:
		return true
	}
	for e := api.Event_RUN_POD_SANDBOX; e < api.Event_LAST; e++ {
		if e.Name() == key {
			return true
		}
	}
	return false
}

func parseDelay(what, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%w: %s %q is not a non-negative Go duration", ErrConfig, what, s)
	}
	return d, nil
}

// LoadConfig reads a JSON Config from path and validates it.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
