// SPDX-License-Identifier: Apache-2.0

// Package testplugin is a configurable NRI plugin for nrikit's own tests and
// for the sample plugins of the nritest tool.
//
// The same plugin logic (Handler) runs in-process behind api.PluginService, or
// over a real trunk (Run), or as a separate process: a test binary or the
// nritest binary re-executes itself with ChildArg (MaybeRunChild, Main). What
// it does is set by a JSON-serialisable Config, so a parent process can hand it
// to a child through a file. Every call is appended to a JSON-lines event log
// before the reply goes out, so a test can check what a plugin saw as soon as
// the runtime's call returns.
package testplugin
