// SPDX-License-Identifier: Apache-2.0

package api

import "google.golang.org/protobuf/proto"

// cloneMessage deep-copies a message, keeping its type.
func cloneMessage[M proto.Message](m M) M {
	return proto.Clone(m).(M)
}
