// SPDX-License-Identifier: Apache-2.0

package api

import "errors"

// Sentinel errors of the api helpers; returned errors wrap them with detail.
var (
	ErrInvalidEventMask = errors.New("nrikit: invalid event mask")
	ErrUnknownEvent     = errors.New("nrikit: unknown event")
	ErrInvalidIndex     = errors.New("nrikit: invalid plugin index")
	ErrInvalidName      = errors.New("nrikit: invalid plugin name")
)
