// SPDX-License-Identifier: Apache-2.0

package mux

import (
	"fmt"
	"net"
)

// network is the Network() of logical connections and their addresses.
const network = "nri-mux"

// Addr is the address of one end of a logical connection: the trunk's
// address at that end plus the connection ID.
type Addr struct {
	Trunk net.Addr // nil if the trunk reports none
	ID    ConnID
}

// Network implements net.Addr.
func (a Addr) Network() string { return network }

// String returns "<trunk address>#<id>", or "#<id>" for an unnamed trunk end
// such as one side of a socketpair.
func (a Addr) String() string {
	if a.Trunk == nil {
		return fmt.Sprintf("#%d", a.ID)
	}
	return fmt.Sprintf("%s#%d", a.Trunk, a.ID)
}
