// SPDX-License-Identifier: Apache-2.0

// Package adaptation is the runtime side of NRI, the Node Resource Interface:
// the package a container runtime links in so that NRI plugins can watch and
// adjust its pods and containers. It is shaped like the reference's
// github.com/containerd/nri/pkg/adaptation (v0.12.5): the same constructor,
// callbacks, event methods, request and response types and option names, so
// that a runtime's glue ports by changing imports (the repository's
// docs/porting.md lists every difference).
//
// # A runtime's use
//
// A runtime creates one [Adaptation] with [New], giving it two callbacks: a
// [SyncFn] that lists its pods and containers for each plugin that joins, and
// an [UpdateFn] that applies container updates a plugin asks for on its own.
// Options set the socket, the plugin directory, the timeouts and the rest; a
// [Config] read from the runtime's config file gives them too ([Config.Options]).
//
//	cfg := adaptation.DefaultConfig() // or the runtime's config file
//	a, err := adaptation.New("myruntime", "v1.2.3", syncFn, updateFn, cfg.Options()...)
//	if err != nil {
//		return err
//	}
//	if err := a.Start(ctx); err != nil { // starts plugins, listens on the socket
//		return err
//	}
//	rsp, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
//
// [Adaptation.Start] returns once the built-in and pre-installed plugins have
// joined or been dropped; only its context's values are used, and its end does
// not stop NRI: [Adaptation.Stop] does. The runtime then calls one method per
// lifecycle event: [Adaptation.RunPodSandbox], [Adaptation.UpdatePodSandbox],
// [Adaptation.PostUpdatePodSandbox], [Adaptation.StopPodSandbox],
// [Adaptation.RemovePodSandbox], [Adaptation.CreateContainer],
// [Adaptation.PostCreateContainer], [Adaptation.StartContainer],
// [Adaptation.PostStartContainer], [Adaptation.UpdateContainer],
// [Adaptation.PostUpdateContainer], [Adaptation.StopContainer] and
// [Adaptation.RemoveContainer]. A CreateContainer response carries the
// container's merged adjustment (GetAdjust), updates of other containers
// (GetUpdate) and the containers plugins want evicted (GetEvict); package
// github.com/nrikit/nrikit/adaptation/ocispec applies the adjustment to an OCI
// spec. A setup event that fails should be undone by the runtime
// (RemoveContainer after a failed CreateContainer, RemovePodSandbox after a
// failed RunPodSandbox), so that plugins that saw it release what they set
// aside.
//
// [Adaptation.Plugins] lists the active plugins ([PluginInfo]: ID, kind,
// revision, pid, subscribed events by name, failure policy, StateChange use)
// and [Adaptation.Deprecations] the deprecated behaviour of connected plugins,
// for a runtime to show operators; [WithPluginChanges] reports every plugin
// that joins, leaves, fails to join or is skipped. [Adaptation.Status] puts
// it all in one JSON-encodable snapshot, with each plugin's calls by event
// and outcome, latency histograms and last error, the connections still
// joining and the recent changes; [Adaptation.ContainerRecord] says which
// plugin changed which field of a container ([WithContainerRecords]), and
// [WithStatusSocket] serves both over HTTP on a unix socket.
//
// With the readiness gate ([WithPluginReadiness], plugin_readiness), the
// runtime calls [Adaptation.AwaitPlugins] first in its RunPodSandbox, before
// its own lock, so that a pod waits, within a bound, for its required plugins;
// [Adaptation.Readiness] says whether the node-level ones are active, as a CRI
// condition too, and [WithReadinessChanges] tells when that flips.
//
// # Plugins
//
// Plugins are external processes that connect to the socket
// ([WithSocketPath]), pre-installed executables and WebAssembly modules in the
// plugin directory ([WithPluginPath]), which nrikit starts, and in-process
// plugins the runtime links in ([BuiltinPlugin], [WithBuiltinPlugins]). All of
// them get the same guarantees: each is called one at a time, in ascending
// order of index, ties broken by name, with a timeout per call; each sees a
// pod's or container's events in the order the runtime issued them, and hears
// of every live pod and container exactly once as created, then at most one
// stop and one removal, in that order, and nothing after the removal.
//
// # Failure policy
//
// What a plugin's failure does depends on the event's class:
//
//	Events                                 Plugin returns an error          Plugin times out, crashes or disconnects
//	-------------------------------------  -------------------------------  ----------------------------------------------
//	Setup: RunPodSandbox,                  The event fails with a           The plugin is dropped (a pre-installed one is
//	UpdatePodSandbox, CreateContainer,     *PluginError naming the plugin   stopped) and the event goes on without it,
//	UpdateContainer, StartContainer        and the event; later plugins     unless its policy says fail_request, which
//	                                       are not called.                  fails the event.
//	Teardown: StopContainer,               Never blocks: every other        As for errors; the plugin is also dropped
//	StopPodSandbox, RemoveContainer,       plugin still gets the event,     unless keep_connected. fail_request never
//	RemovePodSandbox                       the method returns nil, the      applies.
//	                                       failure is logged and counted.
//	Notification: PostCreateContainer,     As teardown.                     As teardown.
//	PostStartContainer,
//	PostUpdateContainer,
//	PostUpdatePodSandbox
//	Validation:                            The container's creation fails.  The creation fails; the validator is dropped
//	ValidateContainerAdjustment                                             unless keep_connected.
//
// A plugin that disconnects before its turn in an event is skipped, whatever
// its policy. A plugin's [FailurePolicy] is its own choice; the runtime's
// default ([WithDefaultFailurePolicy]) applies to plugins that declare none,
// and the operator's [PluginSettings] override both, and the request timeout,
// per plugin. A caller that cancels its own context gets an error, and no
// plugin is blamed for it, but for the one case below.
//
// A reply that changes what the operator's PluginSettings.Allow does not
// let its plugin change is an error of that plugin's, as in the table: a
// setup event fails with a *PluginError that matches [ErrOutOfScope] and
// [ErrRejected], and the plugin stays; a teardown's updates are dropped.
//
// A setup event whose caller's context has a deadline, or with an event
// budget ([WithEventBudget]), keeps its calls within that deadline less a
// reserve ([WithDeadlineReserve]). A call cut short by it, rather than by its
// own timeout, blames no plugin: its outcome is canceled, and the event goes
// on without it, unless its failure fails the request (fail_request, or a
// validator), when the event fails with [ErrEventDeadline]. A plugin whose
// timeout does not fail the request gets no more time than the plugins after
// it that do leave it. Joining plugins are checked against the budget
// ([WithBudgetCheck]).
//
// A plugin that stops reading its socket holds a call only until the call's
// deadline: the write of the request is bounded by it too. A request that
// could not be written in full by then leaves the connection in the middle
// of a message, so that plugin is dropped whatever keep_connected says, even
// when the caller's deadline, not the plugin's timeout, cut the request short
// (the caller then gets its own context's error).
//
// # Locking
//
// containerd and CRI-O hold a mutex of their own while they call every event
// method, and take that same mutex in their SyncFn and UpdateFn. nrikit never
// deadlocks against that, without the runtime changing its locking:
//
//   - SyncFn is called holding no lock of nrikit's. It may take the runtime's
//     lock, and list its store under it or without any lock: events are held
//     back only once it calls its callback, when the runtime's lock, if it
//     takes one, is already held, which is the order of the event path too
//     (runtime lock, then nrikit). The lists are the truth for what existed
//     before a plugin connected; [SyncFn] says how they are reconciled with
//     what nrikit relayed since, and what SyncFn must not do.
//   - UpdateFn is called holding no lock of nrikit's, from the plugin's
//     UpdateContainers call, so it may take the runtime's lock: an event that
//     holds that lock never waits for it.
//   - Stop may be called holding the runtime's lock, as containerd does (see
//     Stopping below).
//   - [Adaptation.BlockPluginSync], if the runtime uses it at all, is taken
//     before the runtime's own lock, never while holding a lock that SyncFn
//     takes. In that order (block, runtime lock, nrikit) nothing deadlocks.
//   - [Adaptation.AwaitPlugins], with the readiness gate on, is called before
//     both, for the same reason: it waits for plugins to join, and they join
//     only once SyncFn has run.
//
// Not avoidable by any library: a plugin that, inside its handler of an event,
// calls UpdateContainers and waits for the answer, while the runtime holds
// across that event the lock its UpdateFn takes, waits until its own request
// timeout, and is then dropped (or kept, by its failure policy). The reference
// behaves the same.
//
// # Stopping
//
// [Adaptation.Stop] sends every plugin Shutdown with a reason
// ([ReasonRuntimeStopping]), then closes its connection and ends launched
// processes. It returns by its context's deadline ([DefaultShutdownGrace]
// without one), and a second more for closing connections, even when a plugin
// joining at that moment waits inside SyncFn for a lock Stop's caller holds:
// then it returns [ErrStopAbandoned] and that plugin is dropped, without
// joining, once SyncFn returns. The same holds for a plugin's updates still
// inside UpdateFn: Stop waits for them within its deadline, and once Stop began
// no new call is handed to UpdateFn. Stop during Start ends the start at once
// (Start returns [ErrStartInterrupted]). Start may be called again after Stop.
//
// # Errors
//
// A plugin's failure that fails an event comes as a [*PluginError] naming the
// plugin and the event. The sentinel errors, for [errors.Is]:
// [ErrRejected] (a validator refused the adjustment), [ErrConflict] (two
// plugins claim the same thing), [ErrRemoved] (a setup event for a pod or
// container already removed; plugins never see it), [ErrPluginTimeout],
// [ErrPluginClosed], [ErrAlreadyStarted], [ErrStartInterrupted],
// [ErrStopAbandoned], [ErrBadSocketPath] and [ErrPluginsNotReady] (a pod's
// required plugins were missing; see [Adaptation.AwaitPlugins]).
//
// # Examples
//
// Example_runtime is a complete runtime: one mutex held around every call into
// NRI and taken again in SyncFn and UpdateFn, an in-process plugin, one pod's
// events and shutdown. Example_portedGlue, Example_containerdConfig and
// Example_crioConfig show ported glue; the examples of [New],
// [Adaptation.Stop], [BuiltinPlugin], [Config] and [PluginError] show each on
// its own.
package adaptation

// Maintainer's map (godoc does not show a comment after the package clause;
// docs/internals.md draws the components and the path of one event). This
// package is the front door: the public API, its types and options, and the
// wiring of the components under internal/ (wiring.go). The plugins, their
// joining and the relay of each event are internal/relay's; each file here
// says in its first line what it holds.
