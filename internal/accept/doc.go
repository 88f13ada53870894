// Package accept holds what the runtime needs to take external plugin
// connections without trusting them: a listener that serves one connection
// already open, and the connecting process's pid where the OS tells it.
package accept
