// SPDX-License-Identifier: Apache-2.0

package api

// An adjustment removes an entry by naming its key with a leading '-': an
// annotation, mount destination, env variable, device path, namespace type,
// sysctl or net device.

// removalMarker is the prefix that marks a key for removal.
const removalMarker = "-"

// IsMarkedForRemoval returns key without its removal marker and whether it
// had one. An empty key is not marked.
func IsMarkedForRemoval(key string) (string, bool) {
	if len(key) > 0 && key[:1] == removalMarker {
		return key[1:], true
	}
	return key, false
}

// MarkForRemoval returns key marked for removal.
func MarkForRemoval(key string) string {
	return removalMarker + key
}

// ClearRemovalMarker returns key without its removal marker, if it has one.
func ClearRemovalMarker(key string) string {
	k, _ := IsMarkedForRemoval(key)
	return k
}

// IsMarkedForRemoval tells whether the variable is a removal, and its name.
func (e *KeyValue) IsMarkedForRemoval() (string, bool) {
	return IsMarkedForRemoval(e.GetKey())
}

// IsMarkedForRemoval tells whether the mount is a removal, and its
// destination.
func (m *Mount) IsMarkedForRemoval() (string, bool) {
	return IsMarkedForRemoval(m.GetDestination())
}

// IsMarkedForRemoval tells whether the device is a removal, and its path.
func (d *LinuxDevice) IsMarkedForRemoval() (string, bool) {
	return IsMarkedForRemoval(d.GetPath())
}

// IsMarkedForRemoval tells whether the namespace is a removal, and its type.
func (n *LinuxNamespace) IsMarkedForRemoval() (string, bool) {
	return IsMarkedForRemoval(n.GetType())
}
