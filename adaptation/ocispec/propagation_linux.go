// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/moby/sys/mountinfo"
)

func init() { hostPropagation = mountinfoPropagation }

// mountinfoPropagation reads the propagation of the mount that holds path,
// the deepest mount point above it, from the kernel's mountinfo: the
// optional field "shared:N" makes it shared, "master:N" a slave.
func mountinfoPropagation(path string) (string, error) {
	mounts, err := mountinfo.GetMounts(mountinfo.ParentsFilter(filepath.Clean(path)))
	if err != nil {
		return "", err
	}
	var holder *mountinfo.Info
	for _, m := range mounts {
		if holder == nil || len(m.Mountpoint) > len(holder.Mountpoint) {
			holder = m
		}
	}
	if holder == nil {
		return "", fmt.Errorf("no mount holds it")
	}
	for _, field := range strings.Fields(holder.Optional) {
		switch {
		case strings.HasPrefix(field, "shared:"):
			return propagationShared, nil
		case strings.HasPrefix(field, "master:"):
			return propagationSlave, nil
		}
	}
	return "", nil
}
