// SPDX-License-Identifier: Apache-2.0

// Check: the error that names what a reply changes outside a plugin's scope.

package scope

import (
	"errors"
	"fmt"
	"strings"
)

// ErrOutOfScope is wrapped by the error of a reply that changes what its
// plugin is not allowed to.
var ErrOutOfScope = errors.New("nrikit: change outside the plugin's scope")

// OutsideError names the classes a reply changes outside its plugin's
// scope.
type OutsideError struct {
	Outside Set // what the reply changes that Allowed lacks; never empty
	Allowed Set
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%v: %s, not in its allow list %v", ErrOutOfScope, strings.Join(e.Outside.Names(), ", "), e.Allowed)
}

func (e *OutsideError) Unwrap() error { return ErrOutOfScope }

// Check says what touched holds outside allowed, nil when nothing: an
// *OutsideError.
func Check(allowed, touched Set) error {
	if outside := touched &^ allowed; outside != 0 {
		return &OutsideError{Outside: outside, Allowed: allowed}
	}
	return nil
}
