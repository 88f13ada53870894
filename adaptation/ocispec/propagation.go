// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"fmt"
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
)

// Mount propagation modes a mount's options may ask for.
const (
	propagationPrivate = "rprivate"
	propagationShared  = "rshared"
	propagationSlave   = "rslave"
)

// hostPropagation says how the host mount holding path propagates:
// propagationShared, propagationSlave or "" (private). Nil, where the OS has
// no such notion, skips the host check; tests replace it.
var hostPropagation func(path string) (string, error)

// applyPropagation makes an added mount's propagation work, as the
// reference's generator and containerd's own CRI mounts do: an rshared
// mount needs a shared host source and a shared container root; an rslave
// one a shared or slave source, and a root that is at least a slave.
// Unlike the reference, which carries one mount's propagation over to the
// mounts after it, each mount is judged by its own options.
func applyPropagation(spec *rspec.Spec, added []rspec.Mount) error {
	for _, m := range added {
		var accepted []string
		switch mountPropagation(m) {
		case propagationShared:
			accepted = []string{propagationShared}
		case propagationSlave:
			accepted = []string{propagationShared, propagationSlave}
		default:
			continue
		}
		if err := checkHostPropagation(m.Source, accepted); err != nil {
			return fmt.Errorf("mount %q: %w", m.Destination, err)
		}
		raiseRootPropagation(ensureLinux(spec), accepted[len(accepted)-1])
	}
	return nil
}

// mountPropagation is the last propagation option of m, as runtimes read it.
func mountPropagation(m rspec.Mount) string {
	mode := ""
	for _, o := range m.Options {
		switch o {
		case propagationPrivate, propagationShared, propagationSlave:
			mode = o
		}
	}
	return mode
}

func checkHostPropagation(source string, accepted []string) error {
	if hostPropagation == nil {
		return nil
	}
	mode, err := hostPropagation(source)
	if err != nil {
		return fmt.Errorf("%w: reading the propagation of host path %q: %w", ErrMountPropagation, source, err)
	}
	for _, a := range accepted {
		if mode == a {
			return nil
		}
	}
	if mode == "" {
		mode = propagationPrivate
	}
	return fmt.Errorf("%w: host path %q is %s, not %s", ErrMountPropagation, source, mode, strings.Join(accepted, " or "))
}

// raiseRootPropagation sets the root's propagation to want, unless it
// already propagates at least as much: a shared root serves an rslave mount.
func raiseRootPropagation(l *rspec.Linux, want string) {
	if want == propagationSlave && (l.RootfsPropagation == propagationShared || l.RootfsPropagation == propagationSlave) {
		return
	}
	l.RootfsPropagation = want
}
